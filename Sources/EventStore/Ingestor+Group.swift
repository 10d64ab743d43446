import StoreCore
import GRDB

extension Ingestor {
    /// The small inputs sharing the write transaction left open between them: they commit
    /// together once their input bytes reach `Limits.groupBytes`, at a segment's commit, or
    /// when the driver flushes (the run's end, before standard input is read). Each keeps its
    /// own ledger row; a kill or a store error loses the group's uncommitted inputs whole, and
    /// a re-run reads them again.
    final class InputGroup {
        /// Input bytes read into the open transaction.
        private(set) var bytes: Int64 = 0
        /// Whether the open transaction holds an input's writes.
        private(set) var isEmpty = true
        /// What the group's inputs committed, in order, for `IngestObserver.didCommit` once the
        /// transaction commits.
        private var committed: [CommittedInput] = []

        /// Adds an input written into the open transaction (and what it committed, when an
        /// observer is told).
        func add(_ size: Int64, committed input: CommittedInput?) {
            bytes += size
            isEmpty = false
            if let input { committed.append(input) }
        }

        /// Whether an input of `size` bytes, added to the group, brings it to `limit`.
        func closes(adding size: Int64, limit: Int64) -> Bool { bytes + size >= limit }

        /// Commits the open transaction, then tells the observer of each input in it, in order.
        func commit(_ db: Database, observer: (any IngestObserver<Database, EventStore>)?, store: EventStore) throws {
            if db.isInsideTransaction { try db.commit() }
            let told = committed
            reset()
            if let observer { for input in told { observer.didCommit(input, store: store) } }
        }

        /// Rolls the open transaction back with every input in it.
        func rollback(_ db: Database) {
            if db.isInsideTransaction { try? db.rollback() }
            reset()
        }

        private func reset() {
            bytes = 0
            isEmpty = true
            committed = []
        }
    }
}
