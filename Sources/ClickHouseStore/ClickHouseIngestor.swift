import Foundation
import FunnelModel
import LogFiles
import StoreCore
import LineParsing

/// Reads inputs into a `ClickHouseStore` with the SQLite `Ingestor`'s contract and summary:
/// the same inputs in the same order give the same counts, seqs, input ids, duplicates,
/// conflicts, quarantine and ledger. Each input writes its rows under a fresh random
/// `attempt`, then its ledger row last: that insert is the commit, and rows of an attempt
/// no ledger row names (a killed ingest, a failed server) never count. An input whose
/// content (SHA-256) the ledger holds is skipped. The `observer` gets each input's parsed
/// events and its accepted lines, with its attempt before the commit and again after it; and
/// its `finish` runs after the last.
public final class ClickHouseIngestor {
    public let store: ClickHouseStore
    public let options: IngestOptions
    public let observer: (any IngestObserver<ClickHouseAttempt, ClickHouseStore>)?
    /// Lines with an event an input holds before they are looked up and inserted.
    var chunkRows = Tuning.chunkRows
    /// Line shapes an input may add to the store (0: every line is kept whole, as before them).
    var newShapesPerInput = Tuning.newShapesPerInput
    /// The store's line shapes, read at the first input and kept from input to input.
    private var shapes: ClickHouseShapes?

    public init(store: ClickHouseStore, options: IngestOptions = IngestOptions(), observer: (any IngestObserver<ClickHouseAttempt, ClickHouseStore>)? = nil) {
        self.store = store
        self.options = options
        self.observer = observer
    }

    /// Ingests `inputs` in order (`IngestDriver`). Input faults (unreadable, truncated or
    /// corrupt gzip) are reported in the summary and the run goes on; server failures throw,
    /// leaving the input being written uncommitted. The store's `writers` table says that an
    /// ingest runs, until it ends.
    public func ingest(_ inputs: [InputSource], progress: ((IngestProgress) -> Void)? = nil) throws -> IngestSummary {
        let writing = try store.startWriting("ingest")
        defer { writing.end() }
        return try IngestDriver(backend: self, options: options).run(inputs, progress: progress)
    }
}

extension ClickHouseIngestor: IngestBackend {
    package func makeEventSink() -> (any ParsedEventSink)? { observer?.makeEventSink() }

    package func finish(_ summary: IngestSummary) throws { try observer?.finish(summary, store: store) }

    /// Nothing to commit: each input's attempt counts once its ledger row is in.
    package func flush() throws {}

    /// Skips an input the ledger holds; else writes it under a new attempt, then commits it.
    package func ingest(_ input: InputPlan, drive: (_ skipLines: Int, _ writer: InputSession) throws -> InputRead) throws -> InputOutcome {
        let ledger = try ClickHouseLedger.read(store)
        if let known = ledger.byContent[input.content.sha256] {
            return .skipped(.init(path: input.label, sha256: input.content.sha256, previousPath: known.path,
                                  previousOutcome: known.outcome))
        }
        let startedAt = options.now().micros
        var attempt = UInt64.random(in: 1...UInt64.max)
        while ledger.attempts.contains(attempt) { attempt = UInt64.random(in: 1...UInt64.max) }
        let session = InputSession(ClickHouseInputWriter(store: store, label: input.label, inputID: ledger.lastID + 1, attempt: attempt,
                                                         committed: ledger.attempts, firstSeq: ledger.events + 1, arrived: startedAt,
                                                         shapes: try shapes ?? ClickHouseShapes.load(store), newShapes: newShapesPerInput),
                                   chunkRows: chunkRows)
        session.writer.source = input.source
        let read = try drive(0, session)
        let committed = session.eventSink.map {
            CommittedInput(seqs: session.writer.seqs, accepted: session.writer.accepted, newUsers: nil, events: $0, more: !input.isLast)
        }
        if let observer, let committed { try observer.willCommit(committed, in: ClickHouseAttempt(id: attempt)) }
        defer { shapes = session.writer.shapes }
        try session.writer.commit(read, sha256: input.content.sha256, size: input.content.size, startedAt: startedAt,
                                  finishedAt: options.now)
        if let observer, let committed { observer.didCommit(committed, store: store) }
        return .read(read.result)
    }
}
