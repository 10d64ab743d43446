import FunnelModel
import LineParsing
import StoreCore
import GRDB

extension Ingestor {
    /// One input's writer inside its transaction, as the ingest driver drives it: each batch
    /// written, the observer given its turn between batches, and a segment committed when
    /// the events outgrow what the observer holds.
    package final class InputSession: InputWriting {
        var writer: InputWriter
        let db: Database
        let store: EventStore
        let observer: (any IngestObserver)?
        let now: @Sendable () -> Timestamp
        package var eventSink: (any ParsedEventSink)?

        init(_ writer: InputWriter, db: Database, store: EventStore, observer: (any IngestObserver)?,
             now: @escaping @Sendable () -> Timestamp) {
            self.writer = writer
            self.db = db
            self.store = store
            self.observer = observer
            self.now = now
        }

        package var lines: Int { writer.result.counts.lines }

        package func write(_ batch: LineBatch) throws {
            try writer.write(batch)
            try observer?.betweenBatches(in: db)
            try writer.afterBatch()
        }

        package func idle() throws {
            try observer?.betweenBatches(in: db)
        }

        package func endSegment(_ segment: SegmentEnd) throws {
            let part = try writer.endSegment(finishedAt: now())
            try observer?.willCommit(CommittedInput(seqs: part.seqs, accepted: part.accepted, newUsers: part.newUsers,
                                                    events: segment.ended, more: true), in: db)
            try db.commit()
            observer?.didCommit(store: store)
            try db.beginTransaction(.immediate)
            eventSink = segment.next
        }
    }
}
