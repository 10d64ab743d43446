import Foundation
import FunnelModel
import EventLog
import EventStore

/// Reads inputs into a `ClickHouseStore` with the SQLite `Ingestor`'s contract and summary:
/// the same inputs in the same order give the same counts, seqs, input ids, duplicates,
/// conflicts, quarantine and ledger. Each input writes its rows under a fresh random
/// `attempt`, then its ledger row last: that insert is the commit, and rows of an attempt
/// no ledger row names (a killed ingest, a failed server) never count. An input whose
/// content (SHA-256) the ledger holds is skipped. The `observer` gets each input's parsed
/// events and, once it committed, its accepted lines; and its `finish` runs after the last.
public final class ClickHouseIngestor {
    public let store: ClickHouseStore
    public let options: IngestOptions
    public let observer: (any ClickHouseIngestObserver)?
    /// Lines with an event an input holds before they are looked up and inserted.
    var chunkRows = Tuning.chunkRows

    public init(store: ClickHouseStore, options: IngestOptions = IngestOptions(), observer: (any ClickHouseIngestObserver)? = nil) {
        self.store = store
        self.options = options
        self.observer = observer
    }

    /// Ingests `inputs` in order. Input faults (unreadable, truncated or corrupt gzip) are
    /// reported in the summary and the run goes on; server failures throw, leaving the input
    /// being written uncommitted. The store's `writers` table says that an ingest runs, until it ends.
    public func ingest(_ inputs: [InputSource], progress: ((IngestProgress) -> Void)? = nil) throws -> IngestSummary {
        let clockStart = DispatchTime.now().uptimeNanoseconds
        let writing = try store.startWriting("ingest")
        defer { writing.end() }
        var summary = IngestSummary()
        summary.files = inputs.count
        summary.flowsChecked = !options.flows.isEmpty
        var unplanned: [UnplannedKey: Int] = [:]
        for (index, input) in inputs.enumerated() {
            var spooled: String?
            defer { if let spooled { unlink(spooled) } }
            let content: Ingestor.ContentHash
            do {
                let read = try Ingestor.content(of: input)
                content = read.0
                spooled = read.spooled
            } catch let e as InputError {
                summary.failures.append(.unreadable(input.path, e))
                continue
            }
            let ledger = try ClickHouseLedger.read(store)
            if let known = ledger.byContent[content.sha256] {
                summary.skipped.append(.init(path: input.path, sha256: content.sha256, previousPath: known.path,
                                             previousOutcome: known.outcome))
                continue
            }
            let result = try ingestOne(path: spooled ?? input.path, label: input.path, content: content, ledger: ledger) { batch, lines in
                progress?(IngestProgress(inputIndex: index, inputCount: inputs.count, path: input.path, bytesRead: batch.bytesRead,
                                         size: content.size, lines: lines))
            }
            summary.add(result, unplanned: &unplanned)
        }
        summary.unplannedBy = IngestSummary.sortedUnplanned(unplanned)
        try observer?.finish(store: store, summary: summary)
        summary.elapsedSeconds = Double(DispatchTime.now().uptimeNanoseconds - clockStart) / 1e9
        return summary
    }

    /// Writes one input under a new attempt, then commits it.
    private func ingestOne(path: String, label: String, content: Ingestor.ContentHash, ledger: ClickHouseLedger,
                           progress: (LineBatch, Int) -> Void) throws -> Ingestor.InputResult {
        let startedAt = options.now().micros
        let flowSteps = Dictionary(options.flows.map { ($0.id, Set($0.steps.map(\.id))) }, uniquingKeysWith: { a, _ in a })
        var attempt = UInt64.random(in: 1...UInt64.max)
        while ledger.attempts.contains(attempt) { attempt = UInt64.random(in: 1...UInt64.max) }
        var writer = ClickHouseInputWriter(store: store, label: label, inputID: ledger.lastID + 1, attempt: attempt,
                                           committed: ledger.attempts, firstSeq: ledger.events + 1, arrived: startedAt,
                                           flowSteps: flowSteps, chunkRows: chunkRows)
        func handle(_ batch: LineBatch) throws {
            try writer.write(batch)
            progress(batch, writer.result.counts.lines)
        }
        let end: ParseEnd
        let sink = observer?.makeEventSink()
        if options.parallel {
            // Parsed on the parsing thread while this one waits for the servers.
            let run = ParseRun(path: path, batchLines: options.batchLines, batchBytes: Tuning.parseBatchBytes, eventSink: sink)
            defer { run.cancel() }
            end = try run.forEach(handle)
        } else {
            end = try LineParser.run(path: path, batchLines: options.batchLines, batchBytes: Tuning.parseBatchBytes, eventSink: sink) {
                try handle($0)
                return true
            }
        }
        let result = try writer.commit(end, sha256: content.sha256, size: content.size, startedAt: startedAt, finishedAt: options.now)
        if let observer, let sink { observer.didCommit(events: sink, attempt: attempt, accepted: writer.accepted) }
        return result
    }
}
