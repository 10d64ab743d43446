import GRDB
import StoreCore

/// Accepted lines on their way into `events`, written many rows to one INSERT: running a
/// statement once per row cost more than the row itself. Seqs follow the store's last one in
/// line order (the writer is the only one appending): SQLite gives each row the next rowid
/// itself, appending without looking the seq up, and each statement's last seq is checked
/// against the one counted here before the seqs are handed over by `flush`.
struct PendingEvents {
    struct Row {
        var line: Int
        var hash: Int64
        var user: Int64
        /// The parser's number of the user in this input (`LineKeys.user`).
        var userNumber: Int32
        var flow: Int64
        var ts: Int64
        var offset: Int32
        /// The event name's atom, and the step's (0: the line names no step).
        var name: Int64
        var step: Int64
    }
    /// Rows per multi-row INSERT.
    static let rowsPerStatement = Tuning.eventRowsPerStatement
    /// Parameters a row binds.
    static let columnsPerRow: Int32 = 10
    private var rows: [Row] = []
    private var bodies: [UInt8] = []
    private var ends: [Int] = []
    private let many: RawStatement
    private let one: RawStatement
    private let inputID: Int64
    private let label: String
    /// The seq of the next row written.
    private var nextSeq: Int64
    /// The seq of the first row of the input's current segment.
    private var firstSeq: Int64

    init(_ db: Database, inputID: Int64, label: String) throws {
        // OR FAIL: a failing row stops the statement without a statement journal (the input's
        // transaction is rolled back by the error anyway).
        let columns = "INSERT OR FAIL INTO events (id_hash, user, flow, ts_us, ts_offset, input_id, line_no, body, event, step) VALUES "
        let values = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        many = try RawStatement(db, columns + Array(repeating: values, count: PendingEvents.rowsPerStatement).joined(separator: ", "))
        one = try RawStatement(db, columns + values)
        nextSeq = try LogRows.lastSeq(in: db) + 1
        firstSeq = nextSeq
        self.inputID = inputID
        self.label = label
        rows.reserveCapacity(PendingEvents.rowsPerStatement)
        bodies.reserveCapacity(PendingEvents.rowsPerStatement * 256)
    }

    var isFull: Bool { rows.count >= PendingEvents.rowsPerStatement }

    /// Starts a new segment of the input: `seqs` starts after the rows written so far.
    mutating func startSegment() { firstSeq = nextSeq }

    /// The seqs of the current segment's rows written so far (the store's last seq is
    /// `seqs.upperBound - 1`).
    var seqs: Range<Int64> { firstSeq..<nextSeq }

    /// Holds `row`, its body appended by `writeBody` to the bodies held.
    mutating func add(_ row: Row, body writeBody: (inout [UInt8]) -> Void) {
        rows.append(row)
        writeBody(&bodies)
        ends.append(bodies.count)
    }

    /// Writes the rows held; `accepted` then gets `target`, each row and its seq, in order.
    mutating func flush<Target>(into target: inout Target, _ accepted: (inout Target, Row, Int64) throws -> Void) throws {
        guard !rows.isEmpty else { return }
        // A full set in one statement; fewer (the end of a batch), one statement each.
        let perStatement = rows.count == PendingEvents.rowsPerStatement ? rows.count : 1
        let statement = perStatement > 1 ? many : one
        let batchSeq = nextSeq
        try bodies.withUnsafeBufferPointer { all in
            var first = 0
            while first < rows.count {
                for k in 0..<perStatement {
                    let i = first + k
                    let row = rows[i]
                    let base = Int32(k) * PendingEvents.columnsPerRow
                    statement.int(base + 1, row.hash)
                    statement.int(base + 2, row.user)
                    statement.int(base + 3, row.flow)
                    statement.int(base + 4, row.ts)
                    statement.int(base + 5, Int64(row.offset))
                    statement.int(base + 6, inputID)
                    statement.int(base + 7, Int64(row.line))
                    // Bound in place: the bytes stay put until the statement has run.
                    statement.staticBlob(base + 8, UnsafeBufferPointer(rebasing: all[(i == 0 ? 0 : ends[i - 1])..<ends[i]]))
                    statement.int(base + 9, row.name)
                    if row.step == 0 { statement.null(base + 10) } else { statement.int(base + 10, row.step) }
                }
                try statement.step("appending \(label) line \(rows[first].line)")
                statement.reset()
                let expected = batchSeq + Int64(first + perStatement - 1)
                guard statement.lastInsertedRowID == expected else {
                    throw StoreError(doing: "appending \(label) line \(rows[first].line)",
                                     reason: "the log gave seq \(statement.lastInsertedRowID), not \(expected)", kind: .corrupt)
                }
                first += perStatement
            }
        }
        nextSeq += Int64(rows.count)
        for (i, row) in rows.enumerated() { try accepted(&target, row, batchSeq + Int64(i)) }
        rows.removeAll(keepingCapacity: true)
        bodies.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }
}
