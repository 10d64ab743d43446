import FunnelModel
import GRDB
import StoreCore

extension EventStore {
    /// Calls `body` with each selected event's line, byte for byte the line that was accepted
    /// (no newline), in arrival order. Duplicates, conflicts and quarantined lines are not
    /// events and never appear. Reads one snapshot of the store; memory holds one line (and,
    /// for one user, their seqs). Returns how many lines it gave.
    @discardableResult
    public func forEachLine(_ selection: EventSelection, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Int {
        try read(doing: "exporting events") { db in
            var flowAtom: Int64?
            if let flow = selection.flow {
                guard let f = try EventStore.atomID(flow, in: db) else { return 0 }
                flowAtom = f
            }
            let reader = try StoredLineReader(db)
            var count = 0
            func emit(_ row: LogRows.Row) throws {
                guard selection.holds(micros: row.ts) else { return }
                let line = try reader.line(user: row.user, flow: row.flow, time: row.time, body: row.body, seq: row.seq)
                try line.withUnsafeBufferPointer(body)
                count += 1
            }
            if let user = selection.user {
                guard let userAtom = try EventStore.atomID(user, in: db) else { return 0 }
                try reader.rows.rows(seqs: UserRuns.seqs(user: userAtom, flow: flowAtom, in: db).sorted(),
                                     doing: "exporting events of \(user)") { seq, row in
                    guard let row else {
                        throw StoreError(doing: "exporting events of \(user)", reason: "event \(seq) is listed but not stored", kind: .corrupt)
                    }
                    try emit(row)
                }
                return count
            }
            let rows = LogRows.Selection(flow: flowAtom, since: selection.since?.micros, until: selection.until?.micros)
            try reader.rows.forEach(rows, doing: "exporting events", emit)
            return count
        }
    }

    /// A read of one snapshot; a database error says what was being done.
    func read<T>(doing: String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.read(body)
        } catch let e as DatabaseError {
            throw StoreError(doing: doing, e)
        }
    }
}
