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
            func emit(_ row: Row) throws {
                let seq: Int64 = row[0]
                guard selection.holds(micros: row[3]) else { return }
                let line = try row.withUnsafeData(atIndex: 4) { data in
                    guard let data else { throw StoreError(doing: "reading event seq \(seq)", reason: "the stored line is missing", kind: .corrupt) }
                    return try data.withUnsafeBytes { try reader.line(user: row[1], flow: row[2], body: $0, seq: seq) }
                }
                try line.withUnsafeBufferPointer(body)
                count += 1
            }
            if let user = selection.user {
                guard let userAtom = try EventStore.atomID(user, in: db) else { return 0 }
                let one = try db.makeStatement(sql: "SELECT seq, user, flow, ts_us, body FROM events WHERE seq = ?")
                for seq in try UserRuns.seqs(user: userAtom, flow: flowAtom, in: db).sorted() {
                    guard let row = try Row.fetchOne(one, arguments: [seq]) else {
                        throw StoreError(doing: "exporting events of \(user)", reason: "event \(seq) is listed but not stored", kind: .corrupt)
                    }
                    try emit(row)
                }
                return count
            }
            var sql = "SELECT seq, user, flow, ts_us, body FROM events"
            var conditions: [String] = []
            var arguments: StatementArguments = []
            if let flowAtom {
                conditions.append("flow = ?")
                arguments += [flowAtom]
            }
            if let since = selection.since {
                conditions.append("ts_us >= ?")
                arguments += [since.micros]
            }
            if let until = selection.until {
                conditions.append("ts_us < ?")
                arguments += [until.micros]
            }
            if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
            let rows = try Row.fetchCursor(db, sql: sql + " ORDER BY seq", arguments: arguments)
            while let row = try rows.next() { try emit(row) }
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
