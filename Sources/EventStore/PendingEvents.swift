import GRDB
import StoreCore

/// Accepted lines on their way into the log, written a block at a time (`EventBlocks`): a
/// SQLite row for many events. Seqs follow the store's last one in line order (the writer
/// is the only one appending), each block's first seq named, so a seq taken twice fails.
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
    /// Events a block holds at most.
    static let rowsPerBlock = Tuning.eventsPerBlock
    private var rows: [Row] = []
    /// The rows held as their block encodes them (filled at each flush).
    private var events: [EventBlock.Event] = []
    private var bodies: [UInt8] = []
    private var ends: [Int] = []
    private var blocks: EventBlocks
    private let inputID: Int64
    private let label: String
    /// The seq of the next row written.
    private var nextSeq: Int64
    /// The seq of the first row of the input's current segment.
    private var firstSeq: Int64

    init(_ db: Database, inputID: Int64, label: String) throws {
        blocks = try EventBlocks(db)
        nextSeq = try LogRows.lastSeq(in: db) + 1
        firstSeq = nextSeq
        self.inputID = inputID
        self.label = label
        rows.reserveCapacity(PendingEvents.rowsPerBlock)
        events.reserveCapacity(PendingEvents.rowsPerBlock)
        bodies.reserveCapacity(PendingEvents.rowsPerBlock * 256)
    }

    var isFull: Bool { rows.count >= PendingEvents.rowsPerBlock }

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

    /// Writes the rows held as one block; `accepted` then gets `target`, each row and its
    /// seq, in order.
    mutating func flush<Target>(into target: inout Target, _ accepted: (inout Target, Row, Int64) throws -> Void) throws {
        guard !rows.isEmpty else { return }
        let blockSeq = nextSeq
        events.removeAll(keepingCapacity: true)
        events.append(contentsOf: rows.lazy.map { row in
            EventBlock.Event(idHash: row.hash, user: row.user, flow: row.flow, event: row.name, step: row.step,
                             ts: row.ts, offset: Int64(row.offset), line: Int64(row.line))
        })
        try bodies.withUnsafeBufferPointer { all in
            try blocks.write(firstSeq: blockSeq, inputID: inputID, events, bodies: all, ends: ends,
                             doing: "appending \(label) line \(rows[0].line)")
        }
        nextSeq += Int64(rows.count)
        for (i, row) in rows.enumerated() { try accepted(&target, row, blockSeq + Int64(i)) }
        rows.removeAll(keepingCapacity: true)
        bodies.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }
}
