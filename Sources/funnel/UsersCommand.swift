import ArgumentParser
import Foundation
import FunnelModel
import Reports

struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "List the users behind a figure (re-engagement lists, debugging).",
        usage: "funnel users [<options>]",
        discussion: """
            Examples:
              funnel users --flow glp1 --state abandoned --step notificationsPermission
              funnel users --flow glp1 --state in_progress --format csv
            Text cuts user ids to fit 80 columns; CSV and JSON have them whole. CSV cells that \
            a spreadsheet would run as formulas start with ' unless --raw-csv (docs/security.md).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, csv, json }

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var flows: FlowsDirectoryOption
    @OptionGroup var selection: SelectionOptions
    @Option(help: "completed, in_progress or abandoned.") var state: String?
    @Option(help: "Only users whose current step is this one.") var step: String?
    @Option(help: "text, csv or json (default: by --output's extension, else text).") var format: Format?
    @OptionGroup var output: OutputOption
    @OptionGroup var csv: RawCSVOption

    func validate() throws {
        _ = try output.format(format, default: .text)
    }

    func run() throws {
        try reportingErrors("users") {
            let format = try output.format(self.format, default: Format.text)
            let catalog = try flows.catalog()
            try output.check(store: storeOptions, reads: catalog.files)
            let store = try storeOptions.openExisting(command: "users")
            try output.check(ledger: store)
            let request = selection.request()
            let clock = now()
            let bar = ProgressBar.onTerminal()
            // Blanked before the output, and before an error's message.
            defer { bar?.clear() }
            let journeys = store.journeys(showingRefoldsOn: bar)
            let list = try request.users(source: journeys, definitions: catalog.all, now: clock, state: state, step: step)
            let warnings = try request.warnings(for: list, source: journeys, definitions: catalog.all, now: clock)
            bar?.clear()
            for warning in warnings {
                FileHandle.standardError.write(Data("funnel users: warning: \(TerminalText.escapeLines(warning))\n".utf8))
            }
            switch format {
            case .text: try output.write(list.text())
            case .csv: try output.write(list.csv(raw: csv.raw))
            case .json: try output.write(try list.json())
            }
        }
    }
}
