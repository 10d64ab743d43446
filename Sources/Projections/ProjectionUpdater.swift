import Foundation
import FunnelModel
import EventStore
import GRDB
import StoreCore
import LineParsing
import Workers
import Journeys

/// Keeps the journeys projection current during ingest, so a late or out-of-order event gives
/// the same journey as a rebuild. An input's journeys are written in its own transaction (the
/// last input of an ingest) or in the next input's (its new users' folded beside its commit,
/// the rest after it, beside the next input; or, when the next input shares its transaction,
/// its new users' beside the next input, the rest before it); `journeys_watermark` says up to
/// which seq they are complete.
///
/// The input's new events are kept in memory (without their lines). At the end of the input,
/// each touched user and flow is folded the cheapest exact way:
/// - no events before this input (the common case in a cold ingest): from those events;
/// - a stored journey that covers exactly the earlier events (same count, same definition)
///   and new events that all come after them in fold order: the stored fold goes on;
/// - a user new with one of the last inputs the ingest committed, whose events there are
///   every earlier one (a session across the cut between two files): from those events kept
///   in memory (`RecentEvents`) and the new ones;
/// - otherwise (a late or out-of-order event, a changed definition): again from the log.
/// Buffered events are capped at `bufferLimit`: past it, a user's buffer is dropped and the
/// user refolded from the log, so memory does not grow with the input.
public final class ProjectionUpdater: IngestObserver {
    let definitions: [String: FlowDefinition]
    let contexts: [String: FlowContext]
    let bufferLimit: Int
    /// The events of the last committed inputs' new users, for the late events of the inputs
    /// after them.
    private let recent: RecentEvents
    /// How the last input's journeys were folded (for tests and tuning).
    public private(set) var lastCounts = Counts()
    /// The fold of the input whose journeys were left for after its commit (its new users'
    /// journeys already folding, the rest waiting for the commit), and the fold of the one
    /// that committed (running off the writing thread; the writer writes its rows).
    private var prepared: (box: PendingBox, job: DeferredFold)?
    private var running: DeferredFold?

    public struct Counts: Sendable, Hashable {
        public var fromMemory = 0
        public var resumed = 0
        public var fromLog = 0
        /// Folded from the events the input before kept and this input's (`RecentEvents`).
        public var fromRecent = 0

        /// Adds the counts of another part of the same input's fold.
        mutating func add(_ other: Counts) {
            fromMemory += other.fromMemory
            resumed += other.resumed
            fromLog += other.fromLog
            fromRecent += other.fromRecent
        }
    }

    public init(definitions: [FlowDefinition], bufferLimit: Int = Tuning.heldEvents) {
        self.definitions = Dictionary(definitions.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        self.contexts = self.definitions.mapValues { FlowContext($0) }
        self.bufferLimit = bufferLimit
        recent = RecentEvents(limit: bufferLimit)
    }

    public func makeEventSink() -> any ParsedEventSink {
        ParsedGroups(bufferLimit: bufferLimit)
    }

    /// Moves what the parsing thread grouped into `pending`, with real seqs: events whose
    /// line was not accepted (a duplicate, a conflict) are dropped, and a user and flow left
    /// with none is not touched.
    private static func adopt(_ groups: ParsedGroups, accepted: AcceptedLines, into pending: inout PendingFold) {
        pending.table = groups.parts.table
        groups.parts = EventParts()
        groups.takeAccepted(accepted) { key, events in
            if pending.buffered.updateValue(events, forKey: key) == nil { pending.order.append(key) }
        }
    }

    /// Folds every touched journey once per input. The journeys of the input before (when
    /// they were left for later) are written first. With `more`, this input's journeys are
    /// folded off the writing thread (its new users' from now, beside the commit; the rest
    /// once it has committed), while the next input is read, and
    /// written in the next input's transaction (or by `finish`); until then the watermark
    /// says they are missing, and whoever reads the store next folds them from the log.
    /// With `sharesTransaction`, its new users' journeys fold beside the next input and the
    /// rest now, all written in the same transaction by the next input (`foldBeside`).
    public func willCommit(_ input: CommittedInput, in db: Database) throws {
        var pending = PendingFold(order: [], buffered: [:], table: EventParts().table, firstSeq: input.firstSeq,
                                  newUsers: input.newUsers ?? [], through: input.lastSeq, input: input.events)
        if let groups = input.events as? ParsedGroups {
            ProjectionUpdater.adopt(groups, accepted: input.accepted, into: &pending)
        }
        // An input folded for later whose transaction did not commit: nothing to write.
        dropPrepared()
        try writeDeferred(in: db, wait: true)
        try ProjectionStore.addMissing(to: &pending, in: db)
        if input.more && !pending.order.isEmpty {
            prepare(pending)
            return
        }
        if input.sharesTransaction && !pending.order.isEmpty {
            try foldBeside(&pending, in: db)
            return
        }
        let context = FoldContext(definitions: definitions, contexts: contexts, workers: WorkerCount.machine, recent: recent)
        let counts = try context.fold(&pending, in: db) { rows in
            try ProjectionStore.apply(rows, contexts: contexts, in: db)
        }
        try ProjectionStore.setWatermark(pending.through, in: db)
        lastCounts = counts
    }

    /// Writes the rows of the input folded beside this one that are ready (between batches).
    public func betweenBatches(in db: Database) throws {
        try writeDeferred(in: db, wait: false)
    }

    /// Leaves an input's journeys for after its commit, and starts folding those that need
    /// nothing from the store (its new users'), beside the commit. Their rows wait in the
    /// fold's queue: the writer takes them once the input has committed (`didCommit`).
    private func prepare(_ pending: PendingFold) {
        let box = PendingBox(pending)
        let job = DeferredFold(through: box.through)
        let context = FoldContext(definitions: definitions, contexts: contexts, workers: Tuning.foldBesideWriterWorkers,
                                  awaited: { job.isAwaited }, recent: recent)
        prepared = (box, job)
        WorkerThread.folding.run {
            // The box's only reference while this runs: events are let go as the fold goes.
            guard var pending = box.take() else { return }
            do {
                pending.folded = try context.foldNew(&pending) { rows in job.push(rows) }
                box.put(pending)
            } catch {
                job.finish(.failure(StoreError(doing: "folding the journeys of an input", reason: "\(error)")))
            }
        }
    }

    /// Folds an input that shares its transaction with the next: its new users' journeys
    /// beside the writer (they read nothing of the store), then the rest, planned here from
    /// the store as this transaction sees it and folded beside the writer too. The next
    /// input's `willCommit` (or `finish`) writes them all, the new users' first, in the order
    /// `FoldContext.fold` hands them over, and then the watermark.
    private func foldBeside(_ pending: inout PendingFold, in db: Database) throws {
        let new = pending.takeNewUsers()
        let context = FoldContext(definitions: definitions, contexts: contexts, workers: WorkerCount.machine, recent: recent)
        var planned: [FoldContext.PlannedChunk] = []
        var counts = ProjectionUpdater.Counts()
        try context.plan(&pending, in: db, counts: &counts) { planned.append($0) }
        let job = DeferredFold(through: pending.through)
        let beside = FoldContext(definitions: definitions, contexts: contexts, workers: Tuning.foldBesideWriterWorkers,
                                 awaited: { job.isAwaited }, recent: recent)
        let box = PendingBox(new)
        running = job
        WorkerThread.folding.run { [planned, counts] in
            guard var new = box.take() else { return }
            do {
                var all = try beside.foldNew(&new) { rows in job.push(rows) }
                for chunk in planned { job.push(beside.foldAll(chunk)) }
                all.add(counts)
                job.finish(.success(all))
            } catch {
                job.finish(.failure(StoreError(doing: "folding the journeys of an input", reason: "\(error)")))
            }
        }
    }

    /// An input left for later whose transaction did not commit: its fold stops, and nothing
    /// of it is written.
    private func dropPrepared() {
        prepared?.job.abandon()
        prepared = nil
    }

    /// Folds the rest of the input that just committed, when it was left for later (after
    /// its new users', on the same thread).
    public func didCommit(_ input: CommittedInput, store: EventStore) {
        recent.committed(input.events)
        guard let (box, job) = prepared else { return }
        prepared = nil
        let context = FoldContext(definitions: definitions, contexts: contexts, workers: Tuning.foldBesideWriterWorkers,
                                  awaited: { job.isAwaited }, recent: recent)
        running = job
        WorkerThread.folding.run {
            // Nil when the first part failed (the job has its end already).
            guard var pending = box.take() else { return }
            do {
                try store.writer.read { db in
                    var counts = try context.fold(&pending, in: db) { rows in job.push(rows) }
                    counts.add(pending.folded)
                    job.finish(.success(counts))
                }
            } catch {
                job.finish(.failure(StoreError(doing: "folding the journeys of an input", reason: "\(error)", kind: StoreError.Kind(sqlite: error))))
            }
        }
    }

    /// Writes the journeys still being folded, in their own transaction.
    public func finish(_ summary: IngestSummary, store: EventStore) throws {
        dropPrepared()
        // Another ingest may come between this one and the next.
        recent.clear()
        guard running != nil else { return }
        try store.writer.write { db in try writeDeferred(in: db, wait: true) }
    }

    /// Writes what the fold beside the writing thread has handed over (all of it, waiting
    /// for the end, with `wait`), and the watermark once every row is in.
    private func writeDeferred(in db: Database, wait: Bool) throws {
        guard let job = running else { return }
        do {
            while let next = job.next(wait: wait) {
                switch next {
                case .rows(let rows):
                    try ProjectionStore.apply(rows, contexts: contexts, in: db)
                case .end(let result):
                    running = nil
                    lastCounts = try result.get()
                    try ProjectionStore.setWatermark(job.through, in: db)
                    return
                }
            }
        } catch {
            // The rows written so far go with the failed transaction: the watermark stays
            // behind them, and whoever reads the store next folds those users from the log.
            running = nil
            job.abandon()
            throw error
        }
    }

    deinit {
        running?.abandon()
        prepared?.job.abandon()
    }
}
