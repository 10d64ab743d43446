import FunnelModel
import LogFiles
import GRDB
#if os(Linux)
import CSQLite
#endif
import Logging
import Foundation
import StoreCore

/// The append-only event store: one SQLite file (WAL mode) holding the event log, the inputs
/// ledger, duplicates, conflicts and the quarantine. Schema changes are named migrations.
///
/// Reads are safe from any thread; writes go through `Ingestor` (or `writer` for projection
/// code that keeps its own tables).
public final class EventStore: Sendable {
    public let path: String
    let pool: DatabasePool
    public let logger: Logger
    /// How the file was opened: a store opened read-only is never written (no migration, no
    /// journey refreshed).
    public let access: Access

    /// For projection code that needs raw GRDB access.
    public var writer: any DatabaseWriter { pool }

    /// Opens (creating if needed) the store at `path` and runs pending migrations: the store's
    /// own first, then `extra` in order. Opened `.readOnly` or `.immutable`, nothing is created
    /// or written, and a store that still needs a migration is an error.
    public init(path: String, migrations extra: [StoreMigration] = [], access: Access = .readWrite,
                logger: Logger = Logger(label: "funnel.eventstore")) throws {
        self.path = path
        self.logger = logger
        self.access = access
        _ = EventStore.sqliteSetUp
        var config = Configuration()
        config.readonly = access != .readWrite
        config.busyMode = .timeout(30)
        // Ingest leaves its write transaction open between small inputs (`Ingestor.InputGroup`).
        config.allowsUnsafeTransactions = true
        config.prepareDatabase { db in
            // WAL + NORMAL: a killed process never loses a committed transaction.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Large pages for a new store (`Tuning.pageBytes`; ignored once the file exists).
            try db.execute(sql: "PRAGMA page_size = \(Tuning.pageBytes)")
            // Every connection reads through its page cache, not a map of the file: a scan of
            // the journeys costs no page faults, and memory stays the same as the store grows.
            try db.execute(sql: "PRAGMA mmap_size = 0")
        }
        do {
            pool = try DatabasePool(path: access == .immutable ? EventStore.immutableURI(path) : path, configuration: config)
            var migrator = DatabaseMigrator()
            EventStore.registerMigrations(&migrator)
            for m in extra {
                let body = m.migrate
                migrator.registerMigration(m.name) { db in try body(db) }
            }
            if access == .readWrite {
                try migrator.migrate(pool)
            } else if try !pool.read({ db in try migrator.hasCompletedMigrations(db) }) {
                throw StoreError(doing: "opening the store \(path) read-only",
                                 reason: "it was written by an older funnel and needs an upgrade, which only a user who can write it can make (any funnel command run by them does)",
                                 kind: .notAStore)
            }
        } catch let e as DatabaseError {
            throw StoreError(doing: "opening the store \(path)", e)
        }
        logger.debug("opened store", metadata: ["path": "\(path)"])
    }

    /// Process-wide SQLite settings, made once before the first connection opens: URI file
    /// names accepted (for `Access.immutable`), and no memory
    /// statistics. With them on (SQLite's default), every allocation of every connection takes
    /// one global mutex, and ingest's writer and the reader folding journeys beside it would
    /// queue on it thousands of times per input. Linux only (the CSQLite shim); elsewhere
    /// SQLite keeps its default.
    static let sqliteSetUp: Bool = {
        #if os(Linux)
        // URI file names too: a store nobody here can write is opened `file:…?immutable=1`.
        _ = funnel_sqlite3_config_uri(1)
        return funnel_sqlite3_config_memstatus(0) == 0 /* SQLITE_OK */
        #else
        return false
        #endif
    }()

    /// `$FUNNEL_STORE`, else `./funnel.sqlite` (a `--store` flag goes before this).
    public static func defaultPath(environment: [String: String]) -> String {
        if let p = environment["FUNNEL_STORE"], !p.isEmpty { return p }
        return "funnel.sqlite"
    }

    // MARK: reading the log

    /// The atom id of a string, if the store has it.
    static func atomID(_ text: String, in db: Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM atoms WHERE text = ?"), arguments: [text])
    }

    /// One user's events (in one flow, or all flows), in fold order (event time, then arrival).
    public static func events(user: String, flow: String?, in db: Database) throws -> [RecordedEvent] {
        guard let userAtom = try atomID(user, in: db) else { return [] }
        var flowAtom: Int64?
        if let flow {
            guard let f = try atomID(flow, in: db) else { return [] }
            flowAtom = f
        }
        let events = try storedLines(seqs: UserRuns.seqs(user: userAtom, flow: flowAtom, in: db), reader: StoredLineReader(db), in: db)
            .events(keepingLines: true)
        return events.foldOrderIndices.map { events[$0] }
    }

    public func events(user: String, flow: String?) throws -> [RecordedEvent] {
        try pool.read { db in try EventStore.events(user: user, flow: flow, in: db) }
    }

    /// The whole log (or one flow's part), grouped by user and flow (in atom order), each
    /// group in fold order, with lines (for checks and tools). Memory holds one user's events.
    public static func forEachEvent(flow: String?, in db: Database, _ body: (RecordedEvent) throws -> Void) throws {
        let statement: RawStatement
        if let flow {
            guard let flowAtom = try atomID(flow, in: db) else { return }
            statement = try RawStatement(db, "SELECT user, flow, seqs FROM user_runs WHERE flow = ? ORDER BY user, flow, first_seq")
            statement.int(1, flowAtom)
        } else {
            statement = try RawStatement(db, "SELECT user, flow, seqs FROM user_runs ORDER BY user, flow, first_seq")
        }
        let reader = try StoredLineReader(db)
        try UserRuns.forEachGroup(statement) { _, _, seqs in
            let events = try storedLines(seqs: seqs, reader: reader, in: db).events(keepingLines: true)
            for i in events.foldOrderIndices { try body(events[i]) }
        }
    }

    /// Every event in arrival order with where it came from (for checks and tools).
    public func storedEvents() throws -> [StoredEvent] {
        try pool.read { db in
            let reader = try StoredLineReader(db)
            var out: [StoredEvent] = []
            try reader.rows.forEach(LogRows.Selection(), doing: "reading the log") { row in
                let r = try reader.recorded(seq: row.seq, user: row.user, flow: row.flow, time: row.time, body: row.body)
                out.append(StoredEvent(recorded: r, inputID: row.inputID, lineNumber: Int(row.line)))
            }
            return out
        }
    }

    /// Copies that arrived again (same body) for these events, in arrival order.
    public func duplicates(ofEventIDs ids: [String]) throws -> [String: [DuplicateCopy]] {
        try pool.read { db in
            var out: [String: [DuplicateCopy]] = [:]
            let statement = try db.makeStatement(sql: """
                SELECT d.event_id, i.path, d.line_no, d.arrived_us FROM duplicates d
                JOIN inputs i ON i.id = d.input_id WHERE d.event_id = ? ORDER BY d.id
                """)
            for id in Set(ids) {
                for row in try Row.fetchAll(statement, arguments: [id]) {
                    out[id, default: []].append(DuplicateCopy(eventID: row[0], inputPath: row[1], line: row[2],
                                                              arrivedAt: Timestamp(micros: row[3])))
                }
            }
            return out
        }
    }

    /// Lines that reused these event ids with a different body, in arrival order.
    public func conflicts(ofEventIDs ids: [String]) throws -> [String: [ConflictCopy]] {
        try pool.read { db in
            var out: [String: [ConflictCopy]] = [:]
            let statement = try db.makeStatement(sql: """
                SELECT c.event_id, i.path, c.line_no, c.arrived_us, c.line FROM conflicts c
                JOIN inputs i ON i.id = c.input_id WHERE c.event_id = ? ORDER BY c.id
                """)
            for id in Set(ids) {
                for row in try Row.fetchAll(statement, arguments: [id]) {
                    out[id, default: []].append(ConflictCopy(eventID: row[0], inputPath: row[1], line: row[2],
                                                             arrivedAt: Timestamp(micros: row[3]), text: row[4]))
                }
            }
            return out
        }
    }

    /// User ids for "did you mean": ids starting with `query` first, then ids containing it,
    /// then the closest by edit distance (at most a third of the query's length).
    public func userIDs(matching query: String, limit: Int) throws -> [String] {
        guard limit > 0 else { return [] }
        return try pool.read { db in
            var out: [String] = []
            var seen = Set<String>()
            func add(_ ids: [String]) {
                for id in ids where out.count < limit && seen.insert(id).inserted { out.append(id) }
            }
            let escaped = query.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
            add(try String.fetchAll(db, sql: """
                SELECT a.text FROM atoms a WHERE a.text >= ? AND substr(a.text, 1, ?) = ?
                  AND EXISTS (SELECT 1 FROM user_runs r WHERE r.user = a.id)
                ORDER BY a.text LIMIT ?
                """, arguments: [query, query.count, query, limit]))
            if out.count < limit {
                add(try String.fetchAll(db, sql: """
                    SELECT a.text FROM atoms a WHERE a.text LIKE ? ESCAPE '\\'
                      AND EXISTS (SELECT 1 FROM user_runs r WHERE r.user = a.id) ORDER BY a.text LIMIT ?
                    """, arguments: ["%" + escaped + "%", limit]))
            }
            if out.count < limit {
                let budget = max(1, query.count / 3)
                let q = Array(query.unicodeScalars)
                var scored: [(Int, String)] = []
                let cursor = try String.fetchCursor(db, sql: """
                    SELECT a.text FROM atoms a WHERE EXISTS (SELECT 1 FROM user_runs r WHERE r.user = a.id) ORDER BY a.text
                    """)
                while let id = try cursor.next() {
                    let c = Array(id.unicodeScalars)
                    guard abs(c.count - q.count) <= budget else { continue }
                    let d = EditDistance.between(q, c)
                    if d <= budget { scored.append((d, id)) }
                }
                scored.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
                add(scored.map(\.1))
            }
            return out
        }
    }

    /// The distinct flows in the log, sorted.
    public func flows() throws -> [String] {
        try pool.read { db in try String.fetchAll(db, sql: "SELECT flow FROM flow_summary ORDER BY flow") }
    }

    /// The latest event time in the log, or the latest not after `bound` (so that one event
    /// dated 2099 does not move "as of"). Without a bound it reads the flow summary; with one
    /// it scans the log.
    public func latestEventTime(notAfter bound: Timestamp?) throws -> Timestamp? {
        try pool.read { db in
            let micros: Int64?
            if let bound {
                let fast = try Int64.fetchOne(db, sql: "SELECT max(last_ts_us) FROM flow_summary")
                if let fast, fast <= bound.micros {
                    micros = fast
                } else {
                    micros = try LogRows.latestTime(notAfter: bound.micros, in: db)
                }
            } else {
                micros = try Int64.fetchOne(db, sql: "SELECT max(last_ts_us) FROM flow_summary")
            }
            return micros.map { Timestamp(micros: $0) }
        }
    }

    /// Events in the log.
    public func eventCount() throws -> Int {
        try pool.read { db in try Int.fetchOne(db, sql: "SELECT coalesce(sum(events), 0) FROM flow_summary") ?? 0 }
    }

    /// Every quarantined line, in input and line order.
    public func quarantine() throws -> [QuarantineEntry] {
        try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT path, line_no, byte_offset, reason_code, reason, raw FROM quarantine ORDER BY input_id, line_no
                """).map { row in
                let code: String = row[3]
                let raw: [UInt8] = (row[5] as Data?).map { Array($0) } ?? []
                return QuarantineEntry(inputPath: row[0], line: row[1], byteOffset: row[2],
                                       code: Rejection.Code(rawValue: code) ?? .notJSON, reason: row[4], raw: raw)
            }
        }
    }

    /// The inputs ledger, in ingest order.
    public func inputs() throws -> [LedgerEntry] {
        try pool.read { db in try Row.fetchAll(db, sql: "SELECT * FROM inputs ORDER BY id").map(EventStore.ledgerEntry) }
    }

    static func ledgerEntry(_ row: Row) -> LedgerEntry {
        LedgerEntry(id: row["id"], path: row["path"], sha256: row["sha256"], size: row["size"], lines: row["lines"],
                    accepted: row["accepted"], duplicates: row["duplicates"], conflicts: row["conflicts"],
                    quarantined: row["quarantined"], unplanned: row["unplanned"],
                    outcome: LedgerEntry.Outcome(rawValue: row["outcome"]) ?? .partial, error: row["error"],
                    startedAt: Timestamp(micros: row["started_us"]), finishedAt: Timestamp(micros: row["finished_us"]))
    }
}
