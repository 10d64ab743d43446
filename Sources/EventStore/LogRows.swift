import FunnelModel
import GRDB
import StoreCore

/// The log's rows as the store's own code reads them: by seq, in seq order, and how far the
/// log goes, out of its blocks (`EventBlocks`). With `PendingEvents`, which writes them, the
/// one place that knows their layout (the migrations of older layouts and the views aside).
final class LogRows {
    /// One event of the log. Its body is valid only inside the closure that was given it.
    struct Row {
        var seq: Int64
        var user: Int64
        var flow: Int64
        var ts: Int64
        var offset: Int64
        var inputID: Int64
        var line: Int64
        /// The atom of the line's event name.
        var event: Int64
        /// The atom of the line's step; nil when the line names none.
        var step: Int64?
        var idHash: Int64
        /// The line as a shape id and the values cut out of it (`StoredLineReader.line`).
        var body: UnsafeRawBufferPointer

        /// The event's time, with the UTC offset its line wrote.
        var time: Timestamp { Timestamp(micros: ts, offsetSeconds: Int32(truncatingIfNeeded: offset)) }
    }

    /// Which rows a scan gives: those after a seq, of one flow, at times in a range.
    struct Selection {
        var after: Int64 = 0
        var flow: Int64?
        var since: Int64?
        var until: Int64?

        func holds(_ row: Row) -> Bool {
            row.seq > after && (flow.map { row.flow == $0 } ?? true)
                && (since.map { row.ts >= $0 } ?? true) && (until.map { row.ts < $0 } ?? true)
        }
    }

    private let db: Database
    private var bySeq: RawStatement?

    init(_ db: Database) {
        self.db = db
    }

    /// Calls `body` with the row of `seq`; nil when the log holds none.
    func row<T>(seq: Int64, doing: @autoclosure () -> String, _ body: (Row) throws -> T) throws -> T? {
        var out: T?
        try rows(seqs: CollectionOfOne(seq), doing: doing()) { _, row in out = try row.map(body) }
        return out
    }

    /// Calls `body` with each of `seqs` and its row (nil when the log holds none), reading a
    /// block once for the consecutive seqs it holds (a user's events often share one).
    func rows<Seqs: RandomAccessCollection<Int64>>(seqs: Seqs, doing: @autoclosure () -> String,
                                                    _ body: (Int64, Row?) throws -> Void) throws {
        let statement = try bySeq ?? RawStatement(db, """
            SELECT \(EventBlocks.columns) FROM event_blocks WHERE first_seq <= ? ORDER BY first_seq DESC LIMIT 1
            """)
        bySeq = statement
        var i = seqs.startIndex
        while i < seqs.endIndex {
            statement.int(1, seqs[i])
            defer { statement.reset() }
            let block = try statement.step(doing()) ? LogRows.block(statement) : nil
            guard let block, block.seqs.contains(seqs[i]) else {
                try body(seqs[i], nil)
                i = seqs.index(after: i)
                continue
            }
            repeat {
                try body(seqs[i], LogRows.row(Int(seqs[i] - block.firstSeq), of: block))
                i = seqs.index(after: i)
            } while i < seqs.endIndex && block.seqs.contains(seqs[i])
        }
    }

    /// Calls `body` with each row of `selection`, in seq order.
    func forEach(_ selection: Selection, doing: @autoclosure () -> String, _ body: (Row) throws -> Void) throws {
        let start = try LogRows.blockStart(before: selection.after + 1, in: db) ?? 0
        let statement = try RawStatement(db, "SELECT \(EventBlocks.columns) FROM event_blocks WHERE first_seq >= ? ORDER BY first_seq")
        statement.int(1, start)
        try statement.forEachRow(doing()) {
            let block = try LogRows.block(statement)
            for k in 0..<block.count {
                let row = try LogRows.row(k, of: block)
                if selection.holds(row) { try body(row) }
            }
        }
    }

    /// The block in the statement's current row.
    private static func block(_ s: RawStatement) throws -> EventBlock.View {
        let firstSeq = s.int64(0)
        var layout = EventBlock.Layout(tsBase: s.int64(3), offsetBase: s.int64(4), lineBase: s.int64(5))
        for c in EventBlock.Column.allCases { layout.widths[c.rawValue] = Int32(clamping: s.int64(Int32(6 + c.rawValue))) }
        let blobs = Int32(6 + EventBlock.Column.allCases.count)
        guard let view = EventBlock.View(firstSeq: firstSeq, count: Int(s.int64(1)), inputID: s.int64(2), layout: layout,
                                         cols: s.bytes(blobs), ids: s.bytes(blobs + 1), bodies: s.bytes(blobs + 2)) else {
            throw corrupt(firstSeq)
        }
        return view
    }

    /// Event `k` of `block`.
    private static func row(_ k: Int, of block: EventBlock.View) throws -> Row {
        guard let user = block.value(.user, k), let flow = block.value(.flow, k), let event = block.value(.event, k),
              let step = block.value(.step, k), let ts = block.value(.ts, k), let offset = block.value(.offset, k),
              let line = block.value(.line, k), let body = block.body(k) else {
            throw corrupt(block.firstSeq + Int64(k))
        }
        let layout = block.layout
        return Row(seq: block.firstSeq + Int64(k), user: Int64(bitPattern: user), flow: Int64(bitPattern: flow),
                   ts: layout.tsBase &+ Int64(bitPattern: ts), offset: layout.offsetBase &+ Int64(bitPattern: offset),
                   inputID: block.inputID, line: layout.lineBase &+ Int64(bitPattern: line), event: Int64(bitPattern: event),
                   step: step == 0 ? nil : Int64(bitPattern: step), idHash: block.idHash(k), body: body)
    }

    private static func corrupt(_ seq: Int64) -> StoreError {
        StoreError(doing: "reading event seq \(seq)", reason: "its block of the log does not decode", kind: .corrupt)
    }

    /// The first seq of the last block that starts at or before `seq`.
    private static func blockStart(before seq: Int64, in db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT first_seq FROM event_blocks WHERE first_seq <= ? ORDER BY first_seq DESC LIMIT 1",
                           arguments: [seq])
    }

    /// The log's last seq (0 when empty).
    static func lastSeq(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT first_seq + count - 1 FROM event_blocks ORDER BY first_seq DESC LIMIT 1") ?? 0
    }

    /// Whether the log has any row with a seq in `seqs`: the last block that starts before
    /// its end is the only one that can hold any.
    static func hasRows(in seqs: Range<Int64>, in db: Database) throws -> Bool {
        guard !seqs.isEmpty, let last = try GRDB.Row.fetchOne(db, sql: """
            SELECT first_seq, count FROM event_blocks WHERE first_seq < ? ORDER BY first_seq DESC LIMIT 1
            """, arguments: [seqs.upperBound]) else { return false }
        let first: Int64 = last[0]
        let count: Int64 = last[1]
        return first + count > seqs.lowerBound
    }

    /// Whether the log has any row after `seq`.
    static func hasRows(after seq: Int64, in db: Database) throws -> Bool {
        try lastSeq(in: db) > seq
    }

    /// The latest event time not after `bound` (microseconds), nil when there is none: every
    /// block that may hold one is read.
    static func latestTime(notAfter bound: Int64, in db: Database) throws -> Int64? {
        let statement = try RawStatement(db, "SELECT \(EventBlocks.columns) FROM event_blocks WHERE ts_base <= ?")
        statement.int(1, bound)
        var latest: Int64?
        try statement.forEachRow("reading the log's times") {
            let block = try LogRows.block(statement)
            for k in 0..<block.count {
                guard let ts = block.value(.ts, k).map({ block.layout.tsBase &+ Int64(bitPattern: $0) }) else {
                    throw corrupt(block.firstSeq + Int64(k))
                }
                if ts <= bound, latest.map({ ts > $0 }) ?? true { latest = ts }
            }
        }
        return latest
    }
}
