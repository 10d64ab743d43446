import FunnelModel
import LogFiles
import GRDB
import StoreCore

/// Where each user's events are in the log.
///
/// The log (`events`) is in arrival order with no per-event user index (a random-order
/// B-tree written on every event). Instead, each input adds one row to
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
            Varint.append(UInt64(bitPattern: s &- previous), to: &out)
            previous = s
        }
        return out
    }

    static func decode(_ b: UnsafeRawBufferPointer, into out: inout [Int64]) -> Bool {
        var i = 0
        var previous: Int64 = 0
        while i < b.count {
            guard let d = Varint.read(b, at: &i) else { return false }
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
                throw StoreError(doing: "reading the runs of user atom \(user)", reason: "a run's seqs do not decode", kind: .corrupt)
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
                throw StoreError(doing: "reading the log by user", reason: "a run's seqs do not decode", kind: .corrupt)
            }
        }
        if let c = current, !seqs.isEmpty { try body(c.user, c.flow, seqs) }
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
