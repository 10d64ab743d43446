import FunnelModel
import LineParsing
import StoreCore
import GRDB

extension Ingestor {
    /// One input's writer inside its transaction, as the ingest driver drives it: each
    /// decided chunk (one batch) written, the observer given its turn between chunks, and a
    /// segment committed (with the inputs before it in the group) when the events outgrow
    /// what the observer holds.
    package final class InputSession: InputWriting {
        var writer: InputWriter
        let db: Database
        let store: EventStore
        let observer: (any IngestObserver<Database, EventStore>)?
        let group: InputGroup
        let now: @Sendable () -> Timestamp
        package var eventSink: (any ParsedEventSink)?

        init(_ writer: InputWriter, db: Database, store: EventStore, observer: (any IngestObserver<Database, EventStore>)?,
             group: InputGroup, now: @escaping @Sendable () -> Timestamp) {
            self.writer = writer
            self.db = db
            self.store = store
            self.observer = observer
            self.group = group
            self.now = now
        }

        /// Each batch is decided on its own: a lookup reads only the ids the filter may hold.
        package var lookupLines: Int { 1 }
        package var lookupBytes: Int { 1 }
        /// A lookup reads the input's transaction, which holds every row written.
        package var lookupSeesWrites: Bool { true }

        package func storedCopies(of ids: EventIDQuery) throws -> StoredCopies {
            try writer.storedCopies(of: ids)
        }

        package func write(_ chunk: DecidedChunk) throws {
            try writer.write(chunk)
            try observer?.betweenBatches(in: db)
            try writer.afterBatch()
        }

        package func idle() throws {
            try observer?.betweenBatches(in: db)
        }

        package func endSegment(_ segment: SegmentEnd, totals: SegmentTotals) throws {
            let part = try writer.endSegment(totals, finishedAt: now())
            let input = CommittedInput(seqs: part.seqs, accepted: part.accepted, newUsers: part.newUsers, events: segment.ended,
                                       more: true)
            try observer?.willCommit(input, in: db)
            // The inputs before it in the group commit with the segment, and are told first.
            group.add(0, committed: input)
            try group.commit(db, observer: observer, store: store)
            try db.beginTransaction(.immediate)
        }
    }
}
