import ArgumentParser
import ClickHouseStore
import LogFiles
import Foundation
import Reports
import StoreCore

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the stored events as NDJSON, each line as it was accepted, in arrival order.",
        usage: "funnel export [<options>]",
        discussion: """
            Duplicates, conflicting copies and quarantined lines are not events and are never
            written. --since and --until select by event time (ts), from --since up to but not
            including --until. An --output ending in .gz is written as gzip; it is written whole \
            or not at all, and never over the store, a SQLite database or a log the store has \
            ingested (docs/security.md).
            Examples:
              funnel export --output all.ndjson.gz
              funnel export --flow glp1 --since 2026-10-03 --until 2026-10-04 | wc -l
              funnel export | funnel ingest --store copy.sqlite -
            """)

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "Only this flow.") var flow: String?
    @Option(help: "Only this user.") var user: String?
    @Option(help: "Only events at or after this time (RFC 3339 or YYYY-MM-DD).") var since: String?
    @Option(help: "Only events before this time (RFC 3339 or YYYY-MM-DD).") var until: String?
    @Option(help: "Write to this file (gzip when it ends in .gz) instead of standard output.") var output: String?

    func run() throws {
        try reportingErrors("export") {
            let window = try Inputs.window(since: since, until: until)
            let selection = EventSelection(flow: flow, user: user, since: window.since, until: window.until)
            let request = ExportRequest(selection: selection)
            let target = output.map { OutputTarget(path: $0) }
            try target?.check(store: ClickHouseLocation.names(storeOptions.path) ? nil : storeOptions.path, reads: [])
            let store = try storeOptions.openExisting(command: "export").log
            try target?.check(ledger: try store.inputs())
            try request.check(log: store)
            let writer = try LineWriter(path: output, gzip: output?.hasSuffix(".gz") ?? false)
            let bar = ProgressBar.onTerminal()
            // The whole log's size is the ledger's; a selection's is known only at its end.
            let total = bar != nil && selection == EventSelection() ? try store.inputs().reduce(0) { $0 + $1.accepted } : nil
            let count = try request.run(log: store, to: writer) { written in
                if written % Tuning.progressEvery == 0 { bar?.update(done: written, of: total, "events") }
            }
            bar?.clear()
            try writer.finish()
            if let output { print("exported \(count) event\(count == 1 ? "" : "s") to \(output)") }
        }
    }
}
