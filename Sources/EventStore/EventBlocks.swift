import GRDB
import StoreCore

/// The `event_blocks` table: the log, a row of consecutive events at a time (`EventBlock`),
/// and the views that show it an event a row (`events`, and `event_log` over it).
struct EventBlocks {
    /// The block columns a statement reads, in the order `LogRows` reads them.
    static let columns = "first_seq, count, input_id, ts_base, offset_base, line_base, "
        + EventBlock.Column.allCases.map(\.widthName).joined(separator: ", ") + ", cols, ids, bodies"

    private let insert: RawStatement
    private var encoded = EventBlock.Encoded()

    init(_ db: Database) throws {
        insert = try RawStatement(db, "INSERT INTO event_blocks (\(EventBlocks.columns), stride) VALUES ("
                                      + Array(repeating: "?", count: 18).joined(separator: ", ") + ")")
    }

    /// Writes `events` (seqs from `firstSeq`, bodies `bodies` cut at `ends`) as one block.
    mutating func write(firstSeq: Int64, inputID: Int64, _ events: [EventBlock.Event], bodies: UnsafeBufferPointer<UInt8>,
                        ends: [Int], doing: @autoclosure () -> String) throws {
        EventBlock.encode(events, ends: ends, into: &encoded)
        let layout = encoded.layout
        insert.int(1, firstSeq)
        insert.int(2, Int64(events.count))
        insert.int(3, inputID)
        insert.int(4, layout.tsBase)
        insert.int(5, layout.offsetBase)
        insert.int(6, layout.lineBase)
        for i in 0..<layout.widths.scalarCount { insert.int(Int32(7 + i), Int64(layout.widths[i])) }
        defer { insert.reset() }
        try encoded.cols.withUnsafeBufferPointer { cols in
            try encoded.ids.withUnsafeBufferPointer { ids in
                // Bound in place: the bytes stay put until the statement has run.
                insert.staticBlob(15, cols)
                insert.staticBlob(16, ids)
                insert.staticBlob(17, bodies)
                insert.int(18, Int64(layout.stride))
                try insert.step(doing())
            }
        }
    }

    // MARK: schema

    /// Events a block holds at most: the `event_slots` the views join a block to.
    static let slots = 1_024

    /// Creates the table and the views over it.
    static func create(_ db: Database) throws {
        let widths = EventBlock.Column.allCases.map { "\($0.widthName) INTEGER NOT NULL" }.joined(separator: ",\n    ")
        try db.execute(sql: """
            CREATE TABLE event_blocks (
                first_seq INTEGER PRIMARY KEY,
                count INTEGER NOT NULL,
                input_id INTEGER NOT NULL REFERENCES inputs(id),
                ts_base INTEGER NOT NULL,
                offset_base INTEGER NOT NULL,
                line_base INTEGER NOT NULL,
                \(widths),
                stride INTEGER NOT NULL,
                cols BLOB NOT NULL,
                ids BLOB NOT NULL,
                bodies BLOB NOT NULL
            )
            """)
        try db.execute(sql: "CREATE TABLE event_slots (n INTEGER PRIMARY KEY)")
        try db.execute(sql: """
            WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n + 1 < \(slots))
            INSERT INTO event_slots SELECT n FROM s
            """)
        try db.execute(sql: eventsView)
    }

    /// Column `column` of event `k.n` of block `b`, as the number its digits say.
    private static func digits(_ column: EventBlock.Column, event: String = "k.n") -> String {
        let before = EventBlock.Column.allCases.prefix(column.rawValue).map { "b.\($0.widthName)" }
        let start = (["1"] + before).joined(separator: " + ")
        return "CAST(substr(b.cols, \(event) * b.stride + \(start), b.\(column.widthName)) AS INTEGER)"
    }

    /// One row per stored event, with the columns the log's rows had before blocks (but the
    /// id hash): what `event_log` reads, and SQL that looks at the log's values.
    static let eventsView = """
        CREATE VIEW events AS
        SELECT b.first_seq + k.n AS seq,
               \(digits(.user)) AS user,
               \(digits(.flow)) AS flow,
               b.ts_base + \(digits(.ts)) AS ts_us,
               b.offset_base + \(digits(.offset)) AS ts_offset,
               b.input_id AS input_id,
               b.line_base + \(digits(.line)) AS line_no,
               substr(b.bodies, 1 + CASE k.n WHEN 0 THEN 0 ELSE \(digits(.bodyEnd, event: "(k.n - 1)")) END,
                      \(digits(.bodyEnd)) - CASE k.n WHEN 0 THEN 0 ELSE \(digits(.bodyEnd, event: "(k.n - 1)")) END) AS body,
               \(digits(.event)) AS event,
               NULLIF(\(digits(.step)), 0) AS step
        FROM event_blocks b CROSS JOIN event_slots k
        WHERE k.n < b.count
        """

    /// Moves the log's rows of one event each (`events`, the table) into blocks, and puts
    /// the views over them in its place.
    static func migrate(_ db: Database) throws {
        try db.execute(sql: "DROP VIEW event_log")
        try db.execute(sql: "ALTER TABLE events RENAME TO events_rows")
        try create(db)
        var blocks = try EventBlocks(db)
        let read = try RawStatement(db, """
            SELECT seq, id_hash, user, flow, ts_us, ts_offset, input_id, line_no, body, event, step FROM events_rows ORDER BY seq
            """)
        var events: [EventBlock.Event] = []
        var bodies: [UInt8] = []
        var ends: [Int] = []
        var first: Int64 = 0
        var input: Int64 = 0
        func flush() throws {
            guard !events.isEmpty else { return }
            try bodies.withUnsafeBufferPointer { b in
                try blocks.write(firstSeq: first, inputID: input, events, bodies: b, ends: ends, doing: "moving the log into blocks at seq \(first)")
            }
            events.removeAll(keepingCapacity: true)
            bodies.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
        }
        try read.forEachRow("reading the log's rows") {
            let seq = read.int64(0)
            let rowInput = read.int64(6)
            if events.count == Tuning.eventsPerBlock || rowInput != input || seq != first + Int64(events.count) {
                try flush()
                first = seq
                input = rowInput
            }
            events.append(EventBlock.Event(idHash: read.int64(1), user: read.int64(2), flow: read.int64(3), event: read.int64(9),
                                           step: read.isNull(10) ? 0 : read.int64(10), ts: read.int64(4), offset: read.int64(5),
                                           line: read.int64(7)))
            bodies.append(contentsOf: read.bytes(8))
            ends.append(bodies.count)
        }
        try flush()
        try db.execute(sql: "DROP TABLE events_rows")
        try db.execute(sql: EventStore.eventLogView)
    }
}
