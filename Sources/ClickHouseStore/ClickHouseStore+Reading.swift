import Foundation
import FunnelModel
import LogFiles
import StoreCore

/// The log read back: the same answers as the SQLite store's for the same inputs. Grouping
/// by user and ordering by (event time, arrival) happen in ClickHouse, on each shard.
extension ClickHouseStore: EventLogReading {
    public func events(user: String, flow: String?) throws -> [RecordedEvent] {
        let snapshot = try snapshot()
        var sql = "SELECT \(RecordedLines.columns) FROM events WHERE \(snapshot.clause) AND user_id = \(ClickHouseSQL.quote(user))"
        if let flow { sql += " AND flow = \(ClickHouseSQL.quote(flow))" }
        var lines = try recordedLines()
        var out: [RecordedEvent] = []
        try rows(coordinator, sql + " ORDER BY ts_us, seq", doing: "reading the events of \(user)") { r in
            out.append(try lines.event(from: &r))
        }
        return out
    }

    /// Each shard's users in turn, a hash bucket of them per answer (every user in one), each
    /// user's events of a flow in fold order.
    public func forEachEvent(flow: String?, _ body: (RecordedEvent) throws -> Void) throws {
        try forEachEvent(flow: flow, bucketBytes: Tuning.bucketBytes, body)
    }

    func forEachEvent(flow: String?, bucketBytes: Int64, _ body: (RecordedEvent) throws -> Void) throws {
        let snapshot = try snapshot()
        var filter = snapshot.clause
        if let flow { filter += " AND flow = \(ClickHouseSQL.quote(flow))" }
        var lines = try recordedLines()
        for server in servers {
            let doing = "reading the log on \(server.server)"
            var bytes: Int64 = 0
            try rows(server, "SELECT sum(line_length) FROM \(layout.shardEvents) WHERE \(filter)", doing: doing) { r in
                bytes = Int64(bitPattern: try r.uint64())
            }
            let buckets = max(1, (bytes + bucketBytes - 1) / bucketBytes)
            for bucket in 0..<buckets {
                let inBucket = ClickHouseStore.bucket(bucket, of: buckets)
                try rows(server, """
                    SELECT \(RecordedLines.columns) FROM \(layout.shardEvents) WHERE \(filter)\(inBucket)
                    ORDER BY user_id, flow, ts_us, seq
                    """, doing: doing) { r in
                    try body(try lines.event(from: &r))
                }
            }
        }
    }

    public func inputs() throws -> [LedgerEntry] {
        var out: [LedgerEntry] = []
        try rows(coordinator, """
            SELECT id, path, sha256, size, lines, accepted, duplicates, conflicts, quarantined, unplanned,
                   outcome, error, started_us, finished_us FROM inputs ORDER BY id
            """, doing: "reading the ledger") { r in
            let id = Int64(try r.uint32())
            let path = try r.string()
            let sha = try r.string()
            let size = try r.int64()
            func count() throws -> Int { Int(try r.uint64()) }
            let lines = try count(), accepted = try count(), duplicates = try count(), conflicts = try count()
            let quarantined = try count(), unplanned = try count()
            let outcome = LedgerEntry.Outcome(rawValue: try r.string()) ?? .partial
            let error = try r.nullableString()
            out.append(LedgerEntry(id: id, path: path, sha256: sha, size: size, lines: lines, accepted: accepted,
                                   duplicates: duplicates, conflicts: conflicts, quarantined: quarantined, unplanned: unplanned,
                                   outcome: outcome, error: error, startedAt: Timestamp(micros: try r.int64()),
                                   finishedAt: Timestamp(micros: try r.int64())))
        }
        return out
    }

    public func quarantine() throws -> [QuarantineEntry] {
        let snapshot = try snapshot()
        var out: [QuarantineEntry] = []
        try rows(coordinator, """
            SELECT path, line_no, byte_offset, reason_code, reason, raw FROM quarantine
            WHERE \(snapshot.clause) ORDER BY input_id, line_no
            """, doing: "reading the quarantine") { r in
            let path = try r.string()
            let line = Int(try r.uint32())
            let offset = try r.int64()
            let code = Rejection.Code(rawValue: try r.string()) ?? .notJSON
            out.append(QuarantineEntry(inputPath: path, line: line, byteOffset: offset, code: code,
                                       reason: try r.string(), raw: Array(try r.bytesOfString())))
        }
        return out
    }

    public func flows() throws -> [String] {
        let snapshot = try snapshot()
        var out: [String] = []
        try rows(coordinator, "SELECT DISTINCT flow FROM input_flows WHERE \(snapshot.clause) AND events > 0 ORDER BY flow",
                 doing: "reading the flows") { r in out.append(try r.string()) }
        return out
    }

    /// From the ledger's per-flow times, or (when the latest is after `bound`) from the log.
    public func latestEventTime(notAfter bound: Timestamp?) throws -> Timestamp? {
        let snapshot = try snapshot()
        let fast = try maximum("max(last_ts_us) FROM input_flows WHERE \(snapshot.clause) AND events > 0")
        guard let bound, let fast, fast > bound.micros else { return fast.map { Timestamp(micros: $0) } }
        return try maximum("max(ts_us) FROM events WHERE \(snapshot.clause) AND ts_us <= \(bound.micros)").map { Timestamp(micros: $0) }
    }

    /// `SELECT count(), EXPRESSION`'s maximum, or nil when no row matched (ClickHouse's max of
    /// nothing is 0).
    private func maximum(_ expression: String) throws -> Int64? {
        var out: Int64?
        try rows(coordinator, "SELECT count(), \(expression)", doing: "reading the latest event time") { r in
            let n = try r.uint64()
            let max = try r.int64()
            out = n > 0 ? max : nil
        }
        return out
    }

    /// Events in the log.
    public func eventCount() throws -> Int {
        let snapshot = try snapshot()
        var n = 0
        try rows(coordinator, "SELECT sum(events) FROM input_flows WHERE \(snapshot.clause)", doing: "counting the events") { r in
            n = Int(try r.uint64())
        }
        return n
    }

    /// As the SQLite store: ids starting with `query`, then containing it, then the closest
    /// by edit distance (at most a third of the query's length).
    public func userIDs(matching query: String, limit: Int) throws -> [String] {
        guard limit > 0 else { return [] }
        let snapshot = try snapshot()
        var out: [String] = []
        var seen = Set<String>()
        let q = ClickHouseSQL.quote(query)
        func add(_ condition: String) throws {
            guard out.count < limit else { return }
            try rows(coordinator, """
                SELECT DISTINCT user_id FROM events WHERE \(snapshot.clause) AND \(condition) ORDER BY user_id LIMIT \(limit)
                """, doing: "looking up users like \(query)") { r in
                let id = try r.string()
                if out.count < limit && seen.insert(id).inserted { out.append(id) }
            }
        }
        try add("substring(user_id, 1, length(\(q))) = \(q)")
        try add("position(user_id, \(q)) > 0")
        guard out.count < limit else { return out }
        let budget = max(1, query.count / 3)
        let scalars = Array(query.unicodeScalars)
        var scored: [(Int, String)] = []
        try rows(coordinator, """
            SELECT DISTINCT user_id FROM events WHERE \(snapshot.clause)
              AND lengthUTF8(user_id) BETWEEN \(max(0, scalars.count - budget)) AND \(scalars.count + budget)
            ORDER BY user_id
            """, doing: "looking up users like \(query)") { r in
            let id = try r.string()
            let d = EditDistance.between(scalars, Array(id.unicodeScalars))
            if d <= budget { scored.append((d, id)) }
        }
        scored.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        for (_, id) in scored where out.count < limit && seen.insert(id).inserted { out.append(id) }
        return out
    }

    public func duplicates(ofEventIDs ids: [String]) throws -> [String: [DuplicateCopy]] {
        var out: [String: [DuplicateCopy]] = [:]
        try copies(of: ids, table: "duplicates", line: false) { id, path, line, arrived, _ in
            out[id, default: []].append(DuplicateCopy(eventID: id, inputPath: path, line: line, arrivedAt: arrived))
        }
        return out
    }

    /// Lines that reused these event ids with a different body, in arrival order.
    public func conflicts(ofEventIDs ids: [String]) throws -> [String: [ConflictCopy]] {
        var out: [String: [ConflictCopy]] = [:]
        try copies(of: ids, table: "conflicts", line: true) { id, path, line, arrived, text in
            out[id, default: []].append(ConflictCopy(eventID: id, inputPath: path, line: line, arrivedAt: arrived, text: text ?? ""))
        }
        return out
    }

    /// The rows of `duplicates` or `conflicts` for `ids`, in arrival order, with their input's path.
    private func copies(of ids: [String], table: String, line: Bool,
                        _ body: (String, String, Int, Timestamp, String?) throws -> Void) throws {
        guard !ids.isEmpty else { return }
        let snapshot = try snapshot()
        let paths = Dictionary(try inputs().map { (UInt32($0.id), $0.path) }, uniquingKeysWith: { a, _ in a })
        try rows(coordinator, """
            SELECT event_id, input_id, line_no, arrived_us\(line ? ", line" : "") FROM \(table)
            WHERE \(snapshot.clause) AND event_id IN \(ClickHouseSQL.list(strings: Set(ids).sorted()))
            ORDER BY input_id, line_no
            """, doing: "reading the \(table)") { r in
            let id = try r.string()
            let input = try r.uint32()
            let lineNo = Int(try r.uint32())
            let arrived = Timestamp(micros: try r.int64())
            let text = line ? try r.string() : nil
            try body(id, paths[input] ?? "", lineNo, arrived, text)
        }
    }

    public func lastEvents(onStep step: String, flow: String, users: [String], notAfter bound: Timestamp) throws -> [String: RecordedEvent] {
        guard !users.isEmpty else { return [:] }
        let snapshot = try snapshot()
        var lines = try recordedLines()
        var out: [String: RecordedEvent] = [:]
        try rows(coordinator, """
            SELECT user_id, \(RecordedLines.columns) FROM events
            WHERE \(snapshot.clause) AND flow = \(ClickHouseSQL.quote(flow)) AND step = \(ClickHouseSQL.quote(step))
              AND ts_us <= \(bound.micros) AND user_id IN \(ClickHouseSQL.list(strings: Set(users).sorted()))
            ORDER BY user_id, ts_us DESC, seq DESC LIMIT 1 BY user_id
            """, doing: "reading the last events on \(step)") { r in
            let user = try r.string()
            out[user] = try lines.event(from: &r)
        }
        return out
    }

    public func events(seqs: [Int64]) throws -> [RecordedEvent] {
        guard !seqs.isEmpty else { return [] }
        let snapshot = try snapshot()
        let wanted = Set(seqs.map { UInt64(bitPattern: $0) }).sorted()
        let doing = "reading \(seqs.count) events by seq"
        var lines = try recordedLines()
        var out: [RecordedEvent] = []
        try rows(coordinator, """
            SELECT \(RecordedLines.columns) FROM events WHERE \(snapshot.clause) AND seq IN \(ClickHouseSQL.list(wanted))
            """, doing: doing) { r in
            out.append(try lines.event(from: &r))
        }
        guard out.count == wanted.count else {
            throw ClickHouseError(server: coordinator.server, doing: doing,
                                  reason: "\(wanted.count - out.count) of the seqs are not in the log", kind: .reply)
        }
        return out
    }
}
