import ArgumentParser
import EventStore
import LogFiles
import Foundation
import FunnelModel
import Reports

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Report a flow's funnel per cohort, from the store (and from log files, ingested first).",
        discussion: """
            Examples:
              funnel report --flow glp1 --cohort glp1 sample-data/glp1
              funnel report --cohort glp1 --by flag:trackingStyleQuestion
              funnel report --flow glp1 --by app_version --by flag:trackingStyleQuestion
              funnel report --since 2026-10-05 --until 2026-10-08 --compare previous
              funnel report --flow glp1 --where weightGoal=maintain --format json
              funnel report --flow glp1 --format html --output glp1.html
            --flow may be left out when the store holds one flow or one flow has the cohort.
            The JSON fields are documented in docs/report-json.md. --output never replaces the \
            store, an input, a SQLite database or an ingested log (docs/security.md).
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var flows: FlowsDirectoryOption
    @OptionGroup var selection: SelectionOptions
    @Option(help: "Break down by cohort, lane, app_version, platform, day, week or flag:NAME; twice for pairs of values (--by app_version --by flag:NAME).")
    var by: [String] = []
    @Option(help: "Set another period beside --since..--until: previous (the same length just before) or SINCE..UNTIL.")
    var compare: String?
    @Option(help: "text, json, csv, markdown or html (default: by --output's extension, else text).") var format: ReportFormat?
    @OptionGroup var output: OutputOption
    @OptionGroup var csv: RawCSVOption
    @OptionGroup var wait: WaitOption
    @Flag(help: "Print the time spent answering (after the store is open) on standard error.") var timing = false
    @Argument(help: "Log files or directories to ingest first (idempotent through the ledger).") var inputs: [String] = []

    func validate() throws {
        _ = try output.format(format, default: .text)
    }

    func run() throws {
        try reportingErrors("report") {
            let format = try output.format(self.format, default: ReportFormat.text)
            let catalog = try flows.catalog()
            var request = selection.request(by: by)
            request.compare = compare
            // Every option is checked before a log is ingested: a typo costs nothing.
            try request.validate(definitions: catalog.all)
            let sources = try inputs.isEmpty ? [] : IngestRun.discover(inputs, command: "report")
            try output.check(store: storeOptions, reads: inputs + sources.map(\.path) + catalog.files)
            let store: OpenedStore
            if inputs.isEmpty {
                store = try storeOptions.openExisting(command: "report")
                try output.check(ledger: store)
            } else {
                let (opened, lock) = try storeOptions.openForWriting(wait, command: "report")
                store = opened
                try output.check(ledger: store)
                let summary = try withExtendedLifetime(lock) {
                    try IngestRun.run(sources, store: store, definitions: catalog.all, strict: false, command: "report")
                }
                FileHandle.standardError.write(Data((Format.wrapLines(summary.oneLine) + "\n").utf8))
                if !summary.failures.isEmpty {
                    for f in summary.failures {
                        FileHandle.standardError.write(Data((Format.wrapLines("funnel report: \(f.message)") + "\n").utf8))
                    }
                }
            }
            let started = DispatchTime.now().uptimeNanoseconds
            let clock = now()
            let bar = ProgressBar.onTerminal()
            // Blanked before the output, and before an error's message.
            defer { bar?.clear() }
            let journeys = store.journeys(showingRefoldsOn: bar)
            var report = try request.run(source: journeys, definitions: catalog.all, now: clock)
            if format == .html { report.explanations = try request.explanations(of: report, source: journeys, definitions: catalog.all, now: clock) }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            let warnings = try request.warnings(for: report, source: journeys, definitions: catalog.all, now: clock)
            bar?.clear()
            if timing {
                FileHandle.standardError.write(Data(String(format: "report: %.4f s\n", seconds).utf8))
            }
            for warning in warnings {
                FileHandle.standardError.write(Data("funnel report: warning: \(TerminalText.escapeLines(warning))\n".utf8))
            }
            let text: String
            switch format {
            case .text: text = report.text()
            case .json: text = try report.json()
            case .csv: text = report.csv(raw: csv.raw)
            case .markdown: text = report.markdown()
            case .html: text = report.html(command: typedCommandLine(), generatedAt: nil)
            }
            try output.write(text)
        }
    }
}
