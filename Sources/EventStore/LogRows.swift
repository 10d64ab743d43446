import GRDB
import StoreCore

/// The log's rows (`events`) as the store's own code reads them: by seq, in seq order, and
/// how far the log goes. With `PendingEvents`, which writes them, the one place that knows
/// their layout (the migrations of older layouts and the readable views aside).
final class LogRows {
    /// One row, read from its statement while the caller looks at it: its bytes are valid
    /// only inside the closure that was given it.
    struct Row {
        fileprivate let statement: RawStatement

        var seq: Int64 { statement.int64(0) }
        var user: Int64 { statement.int64(1) }
        var flow: Int64 { statement.int64(2) }
        var ts: Int64 { statement.int64(3) }
        var inputID: Int64 { statement.int64(4) }
        var line: Int64 { statement.int64(5) }
        /// The atom of the line's step; nil when the line names none.
        var step: Int64? { statement.isNull(6) ? nil : statement.int64(6) }
        var idHash: Int64 { statement.int64(7) }
        /// The line as a shape id and the values cut out of it (`StoredLineReader.line`).
        var body: UnsafeRawBufferPointer { statement.bytes(8) }
    }

    /// Which rows a scan gives: those after a seq, of one flow, at times in a range.
    struct Selection {
        var after: Int64 = 0
        var flow: Int64?
        var since: Int64?
        var until: Int64?
    }

    private static let columns = "seq, user, flow, ts_us, input_id, line_no, step, id_hash, body"
    private let db: Database
    private var bySeq: RawStatement?

    init(_ db: Database) {
        self.db = db
    }

    /// Calls `body` with the row of `seq`; nil when the log holds none.
    func row<T>(seq: Int64, doing: @autoclosure () -> String, _ body: (Row) throws -> T) throws -> T? {
        let statement = try bySeq ?? RawStatement(db, "SELECT \(LogRows.columns) FROM events WHERE seq = ?")
        bySeq = statement
        statement.int(1, seq)
        defer { statement.reset() }
        guard try statement.step(doing()) else { return nil }
        return try body(Row(statement: statement))
    }

    /// Calls `body` with each row of `selection`, in seq order.
    func forEach(_ selection: Selection, doing: @autoclosure () -> String, _ body: (Row) throws -> Void) throws {
        var conditions = ["seq > ?"]
        if selection.flow != nil { conditions.append("flow = ?") }
        if selection.since != nil { conditions.append("ts_us >= ?") }
        if selection.until != nil { conditions.append("ts_us < ?") }
        let statement = try RawStatement(db, "SELECT \(LogRows.columns) FROM events WHERE "
                                             + conditions.joined(separator: " AND ") + " ORDER BY seq")
        var next: Int32 = 1
        for value in [selection.after, selection.flow, selection.since, selection.until] {
            guard let value else { continue }
            statement.int(next, value)
            next += 1
        }
        let row = Row(statement: statement)
        try statement.forEachRow(doing()) { try body(row) }
    }

    /// The log's last seq (0 when empty).
    static func lastSeq(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) FROM events") ?? 0
    }

    /// Whether the log has any row with a seq in `seqs`.
    static func hasRows(in seqs: Range<Int64>, in db: Database) throws -> Bool {
        guard !seqs.isEmpty else { return false }
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM events WHERE seq >= ? AND seq < ?)",
                                 arguments: [seqs.lowerBound, seqs.upperBound]) == true
    }

    /// Whether the log has any row after `seq`.
    static func hasRows(after seq: Int64, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM events WHERE seq > ?)", arguments: [seq]) == true
    }

    /// The latest event time not after `bound` (microseconds), nil when there is none.
    static func latestTime(notAfter bound: Int64, in db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT max(ts_us) FROM events WHERE ts_us <= ?", arguments: [bound])
    }
}
