import ArgumentParser
import Foundation
import Reports

struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "What explains a drop-off: the answers, flags, versions and prompt outcomes of the users who left at a step.",
        usage: "funnel explain --step <step> [<options>]",
        discussion: """
            Among the users eligible for the step who reached it, each attribute value's \
            drop rate against the rest, with its 95% interval and p-value (adjusted across \
            the values), strongest evidence first; then what the users who dropped there \
            did last on it. docs/explain.md says who is counted how.
            Examples:
              funnel explain --flow glp1 --step signIn
              funnel explain --flow glp1 --step notificationsPermission --lane glp1
              funnel explain --flow glp1 --step healthKitBenefits --format json
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var flows: FlowsDirectoryOption
    @OptionGroup var selection: SelectionOptions
    @Option(help: "The step whose drop-off to explain.") var step: String
    @Option(help: "Only this lane's users (default: every lane that has the step, summed).") var lane: String?
    @Option(help: "text, json or markdown (default: by --output's extension, else text).") var format: ExplainFormat?
    @OptionGroup var output: OutputOption

    func validate() throws {
        _ = try output.format(format, default: .text)
    }

    func run() throws {
        try reportingErrors("explain") {
            let format = try output.format(self.format, default: ExplainFormat.text)
            let catalog = try flows.catalog()
            let request = ExplainRequest(selection: selection.request(), step: step, lane: lane)
            try request.validate(definitions: catalog.all)
            try output.check(store: storeOptions, reads: catalog.files)
            let store = try storeOptions.openExisting(command: "explain")
            try output.check(ledger: store)
            let bar = ProgressBar.onTerminal()
            // Blanked before the output, and before an error's message.
            defer { bar?.clear() }
            let explanation = try request.run(source: store.journeys(showingRefoldsOn: bar), definitions: catalog.all, now: now())
            bar?.clear()
            switch format {
            case .text: try output.write(explanation.text())
            case .json: try output.write(try explanation.json())
            case .markdown: try output.write(explanation.markdown())
            }
        }
    }
}

extension ExplainFormat: ExpressibleByArgument {}
