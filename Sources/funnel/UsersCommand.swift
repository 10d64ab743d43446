import ArgumentParser
import Foundation
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
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, csv, json }

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var flows: FlowsDirectoryOption
    @OptionGroup var selection: SelectionOptions
    @Option(help: "completed, in_progress or abandoned.") var state: String?
    @Option(help: "Only users whose current step is this one.") var step: String?
    @Option(help: "text, csv or json.") var format: Format = .text
    @OptionGroup var output: OutputOption

    func run() throws {
        try reportingErrors("users") {
            let catalog = try flows.catalog()
            let store = try storeOptions.openExisting(command: "users")
            let request = selection.request()
            let clock = now()
            let list = try request.users(source: store.journeys, definitions: catalog.all, now: clock, state: state, step: step)
            for warning in try request.warnings(for: list, source: store.journeys, definitions: catalog.all, now: clock) {
                FileHandle.standardError.write(Data("funnel users: warning: \(warning)\n".utf8))
            }
            switch format {
            case .text: try output.write(list.text())
            case .csv: try output.write(list.csv())
            case .json: try output.write(try list.json())
            }
        }
    }
}
