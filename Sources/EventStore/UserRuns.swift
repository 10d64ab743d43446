import FunnelModel
import EventLog
import GRDB

/// Where each user's events are in the log.
///
/// The log (`events`) is in arrival order with no per-event user index: keeping one in a
/// random-order B-tree cost about a fifth of an ingest. Instead, each input adds one row to
/// `user_runs` per user and flow it touched: the seqs of that user's new events (varint
/// deltas, ascending), how many, and their latest event time. A user's events are the rows
/// of their runs; a run never spans two inputs (an input's runs all commit with it).
enum UserRuns {
    /// Seqs, ascending, as a varint of the first followed by varint deltas.
    static func encode(_ seqs: [Int64]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(seqs.count * 2 + 4)
        var previous: Int64 = 0
        for s in seqs {
            StoredLine.appendVarint(UInt64(bitPattern: s &- previous), to: &out)
            previous = s
        }
        return out
    }

    static func decode(_ b: UnsafeRawBufferPointer, into out: inout [Int64]) -> Bool {
        var i = 0
        var previous: Int64 = 0
        while i < b.count {
            guard let d = StoredLine.readVarint(b, &i) else { return false }
            previous = previous &+ Int64(bitPattern: d)
            out.append(previous)
        }
        return true
    }

    /// The seqs of one user's events (in one flow, or all flows), ascending.
    static func seqs(user: Int64, flow: Int64?, in db: Database) throws -> [Int64] {
        let statement: RawStatement
        if let flow {
            statement = try RawStatement(cached: "SELECT seqs FROM user_runs WHERE user = ? AND flow = ?", in: db)
            statement.reset()
            statement.int(1, user)
            statement.int(2, flow)
        } else {
            statement = try RawStatement(cached: "SELECT seqs FROM user_runs WHERE user = ?", in: db)
            statement.reset()
            statement.int(1, user)
        }
        var out: [Int64] = []
        try statement.forEachRow("reading the runs of user atom \(user)") {
            guard decode(statement.bytes(0), into: &out) else {
                throw StoreError(doing: "reading the runs of user atom \(user)", reason: "a run's seqs do not decode")
            }
        }
        if flow == nil { out.sort() }
        return out
    }

    /// Steps `statement` (rows `user, flow, seqs` in user, flow, first_seq order) and hands
    /// over each user and flow with the seqs of all their runs, ascending.
    static func forEachGroup(_ statement: RawStatement,
                             _ body: (_ user: Int64, _ flow: Int64, _ seqs: [Int64]) throws -> Void) throws {
        var current: (user: Int64, flow: Int64)?
        var seqs: [Int64] = []
        try statement.forEachRow("reading the log by user") {
            let key = (user: statement.int64(0), flow: statement.int64(1))
            if let c = current, c != key {
                try body(c.user, c.flow, seqs)
                seqs.removeAll(keepingCapacity: true)
            }
            current = key
            guard decode(statement.bytes(2), into: &seqs) else {
                throw StoreError(doing: "reading the log by user", reason: "a run's seqs do not decode")
            }
        }
        if let c = current, !seqs.isEmpty { try body(c.user, c.flow, seqs) }
    }
}

/// Collects the runs of one input on the writing thread and writes them before the input's
/// projections are folded (a refold from the log must see the input's own events).
struct RunCollector {
    private struct Key: Hashable {
        var user: Int64
        var flow: Int64
    }
    private struct Run {
        var key: Key
        var seqs: [Int64]
        var lastTs: Int64
    }
    private var index: [Key: Int] = [:]
    private var runs: [Run] = []
    /// Seqs held; past `limit` the runs are written early, so memory stays bounded.
    private(set) var held = 0
    let limit: Int

    init(limit: Int = 1 << 18) { self.limit = limit }

    mutating func add(user: Int64, flow: Int64, seq: Int64, ts: Int64) {
        let key = Key(user: user, flow: flow)
        if let i = index[key] {
            runs[i].seqs.append(seq)
            runs[i].lastTs = max(runs[i].lastTs, ts)
        } else {
            index[key] = runs.count
            runs.append(Run(key: key, seqs: [seq], lastTs: ts))
        }
        held += 1
    }

    /// Writes the runs held and forgets them.
    mutating func flush(_ db: Database) throws {
        guard !runs.isEmpty else { return }
        let insert = try RawStatement(cached: """
            INSERT INTO user_runs (user, flow, first_seq, events, last_ts_us, seqs) VALUES (?, ?, ?, ?, ?, ?)
            """, in: db)
        for run in runs {
            guard let first = run.seqs.first else { continue }
            insert.int(1, run.key.user)
            insert.int(2, run.key.flow)
            insert.int(3, first)
            insert.int(4, Int64(run.seqs.count))
            insert.int(5, run.lastTs)
            UserRuns.encode(run.seqs).withUnsafeBufferPointer { insert.blob(6, $0) }
            try insert.step("recording where user atom \(run.key.user)'s events are")
            insert.reset()
        }
        runs.removeAll(keepingCapacity: true)
        index.removeAll(keepingCapacity: true)
        held = 0
    }
}

extension EventStore {
    /// v2: `user_runs` replaces the per-event index `events_by_user` (see `UserRuns`).
    static func migrateToUserRuns(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE user_runs (
                user INTEGER NOT NULL,
                flow INTEGER NOT NULL,
                first_seq INTEGER NOT NULL,
                events INTEGER NOT NULL,
                last_ts_us INTEGER NOT NULL,
                seqs BLOB NOT NULL,
                PRIMARY KEY (user, flow, first_seq)
            ) WITHOUT ROWID
            """)
        // A store written before v2: one run per user, flow and input, from the old index.
        let rows = try RawStatement(db, "SELECT user, flow, input_id, seq, ts_us FROM events ORDER BY user, flow, input_id, seq")
        var runs = RunCollector()
        var current: (Int64, Int64, Int64)?
        try rows.forEachRow("migrating the store to user runs") {
            let key = (rows.int64(0), rows.int64(1), rows.int64(2))
            if let c = current, c != key { try runs.flush(db) }
            current = key
            runs.add(user: key.0, flow: key.1, seq: rows.int64(3), ts: rows.int64(4))
        }
        try runs.flush(db)
        try db.execute(sql: "DROP INDEX events_by_user")
    }
}

/// One user's stored lines in one flow, read on the writing thread, decoded on any thread
/// (so that refolding from the log can use both cores).
public struct StoredLines: Sendable {
    public private(set) var seqs: [Int64] = []
    private var bytes: [UInt8] = []
    private var ends: [Int] = []

    public init() {}

    /// Bytes of line text held.
    public var byteCount: Int { bytes.count }

    mutating func append(seq: Int64, line: [UInt8]) {
        seqs.append(seq)
        bytes.append(contentsOf: line)
        ends.append(bytes.count)
    }

    /// The events, decoded, in arrival (seq) order; each with its line when `keepingLines`.
    public func events(keepingLines: Bool = false) throws -> [RecordedEvent] {
        var decoder = EventDecoder()
        var cache = EventCache()
        var out: [RecordedEvent] = []
        out.reserveCapacity(seqs.count)
        try bytes.withUnsafeBufferPointer { all in
            var start = 0
            for i in seqs.indices {
                let b = UnsafeBufferPointer(rebasing: all[start..<ends[i]])
                start = ends[i]
                switch decoder.envelope(b) {
                case .success(let env):
                    out.append(RecordedEvent(seq: seqs[i], event: decoder.event(from: env, in: b, cache: &cache),
                                             line: keepingLines ? String(decoding: b, as: UTF8.self) : ""))
                case .failure(let r):
                    throw StoreError(doing: "reading event seq \(seqs[i])", reason: "the stored line no longer decodes: \(r.text)")
                }
            }
        }
        return out
    }
}

extension EventStore {
    /// One user's lines in one flow, as stored (not decoded).
    public static func storedLines(user: String, flow: String, in db: Database) throws -> StoredLines {
        guard let userAtom = try atomID(user, in: db), let flowAtom = try atomID(flow, in: db) else { return StoredLines() }
        return try storedLines(seqs: UserRuns.seqs(user: userAtom, flow: flowAtom, in: db), reader: StoredLineReader(db), in: db)
    }

    /// Every user's lines, one user and flow at a time (in atom order): what a rebuild folds.
    /// Memory holds one user's lines.
    public static func forEachUsersLines(in db: Database, _ body: (_ user: String, _ flow: String, StoredLines) throws -> Void) throws {
        let statement = try RawStatement(db, "SELECT user, flow, seqs FROM user_runs ORDER BY user, flow, first_seq")
        let reader = try StoredLineReader(db)
        try UserRuns.forEachGroup(statement) { user, flow, seqs in
            try body(String(decoding: try reader.atom(user), as: UTF8.self), String(decoding: try reader.atom(flow), as: UTF8.self),
                     storedLines(seqs: seqs, reader: reader, in: db))
        }
    }

    static func storedLines(seqs: [Int64], reader: StoredLineReader, in db: Database) throws -> StoredLines {
        var out = StoredLines()
        let statement = try RawStatement(cached: "SELECT user, flow, body FROM events WHERE seq = ?", in: db)
        for seq in seqs {
            statement.reset()
            statement.int(1, seq)
            guard try statement.step("reading event seq \(seq)") else {
                statement.reset()
                throw StoreError(doing: "reading event seq \(seq)", reason: "a user run names an event the log does not hold")
            }
            let line = try reader.line(user: statement.int64(0), flow: statement.int64(1), body: statement.bytes(2), seq: seq)
            out.append(seq: seq, line: line)
        }
        statement.reset()
        return out
    }
}
