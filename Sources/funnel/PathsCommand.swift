import ArgumentParser
import Foundation
import FunnelModel
import Reports

struct PathsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paths",
        abstract: "How users really moved through a flow: moves against their expected path, exits, returns, time between two steps.",
        usage: "funnel paths [<options>]",
        discussion: """
            Each move between two steps a user viewed one after the other is forward (the \
            next step of their expected path), skip (a later one), back (an earlier one) or \
            off_path; exits say where users last viewed a step, returns where they came back \
            after more than the idle window away. docs/paths.md says who is counted how.
            Examples:
              funnel paths --flow glp1
              funnel paths --flow glp1 --cohort glp1 --format json
              funnel paths --flow glp1 --from height --to activityLevel
              funnel paths --flow glp1 --format html --output paths.html
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var flows: FlowsDirectoryOption
    @OptionGroup var selection: SelectionOptions
    @Option(help: "With --to: the time from the first view of this step to the first view of --to after it.") var from: String?
    @Option(help: "With --from: the step whose first view after --from ends the time between.") var to: String?
    @Option(help: "text, json, csv, markdown or html (default: by --output's extension, else text).") var format: ReportFormat?
    @OptionGroup var output: OutputOption
    @OptionGroup var csv: RawCSVOption

    func validate() throws {
        _ = try output.format(format, default: .text)
    }

    func run() throws {
        try reportingErrors("paths") {
            let format = try output.format(self.format, default: ReportFormat.text)
            let catalog = try flows.catalog()
            let request = PathsRequest(selection: selection.request(), from: from, to: to)
            try request.validate(definitions: catalog.all)
            try output.answer(from: storeOptions, command: "paths", catalog: catalog) { store, bar in
                let paths = try request.run(source: store.journeys(showingRefoldsOn: bar), definitions: catalog.all, now: now()) { read in
                    bar?.update(done: read, of: nil, "users' events read")
                }
                switch format {
                case .text: return paths.text()
                case .json: return try paths.json()
                case .csv: return paths.csv(raw: csv.raw)
                case .markdown: return paths.markdown()
                case .html: return paths.html(command: typedCommandLine())
                }
            }
        }
    }
}
