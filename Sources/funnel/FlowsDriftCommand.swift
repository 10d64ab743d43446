import ArgumentParser
import Foundation
import Reports

extension FlowsCommand {
    /// `funnel flows drift`: where the stored logs and a flow definition disagree, and the
    /// edit of the definition that would absorb each finding.
    struct Drift: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "drift",
            abstract: "List where the logs and a flow definition disagree, with the edit for each.",
            usage: "funnel flows drift [--flow <flow>] [<options>]",
            discussion: """
            Examples:
              funnel flows drift --flow glp1
              funnel flows drift --flow glp1 --flows my-flows --format json
            Exit status: 0 when they agree, 1 with findings (like diff), 2 on errors and
            when no user of the flow is in the store to compare (a flow with no events).
            The findings are those of the report's drift section (docs/drift.md).
            """)
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var flows: FlowsDirectoryOption
        @Option(help: "The flow id.") var flow: String?
        @OptionGroup var time: TimeOptions
        @Option(help: "text, json or csv (default: by --output's extension, else text).") var format: DriftFormat?
        @OptionGroup var output: OutputOption
        @OptionGroup var csv: RawCSVOption

        enum DriftFormat: String, ExpressibleByArgument, CaseIterable {
            case text, json, csv
        }

        func validate() throws {
            _ = try output.format(format, default: .text)
        }

        func run() throws {
            let report = try reportingErrors("flows drift") { () -> FunnelReport in
                let format = try output.format(self.format, default: DriftFormat.text)
                let catalog = try flows.catalog()
                let request = ReportRequest(flow: flow, cohort: nil, filters: [], by: nil, since: nil, until: nil,
                                            idle: time.idle, asOf: time.asOf)
                try request.validate(definitions: catalog.all)
                try output.check(store: storeOptions, reads: catalog.files)
                let store = try storeOptions.openExisting(command: "flows drift")
                try output.check(ledger: store)
                let clock = now()
                let bar = ProgressBar.onTerminal()
                // Blanked before the output, and before an error's message.
                defer { bar?.clear() }
                let journeys = store.journeys(showingRefoldsOn: bar)
                let report = try request.run(source: journeys, definitions: catalog.all, now: clock)
                // With no user there is nothing to compare: not an agreement.
                let warnings = try request.warnings(for: report, source: journeys, definitions: catalog.all, now: clock)
                bar?.clear()
                if report.users.started == 0 {
                    throw CLIError("nothing to compare: " + (warnings.last ?? "no user started in the flow"))
                }
                for warning in warnings {
                    FileHandle.standardError.write(Data("funnel flows drift: warning: \(warning)\n".utf8))
                }
                let text: String
                switch format {
                case .text: text = report.driftListing()
                case .json: text = try FunnelReport.driftJSON(report)
                case .csv: text = report.driftCSV(raw: csv.raw)
                }
                try output.write(text)
                return report
            }
            if !(report.drift ?? []).isEmpty { throw ExitCode(1) }
        }
    }
}
