import FunnelModel
import GRDB

/// SQL that shows the store's encoded values as readable text, for views that `sqlite3`,
/// DuckDB or any SQLite client can query (see docs/store.md).
public enum ReadableSQL {
    /// RFC 3339 UTC text of a column of microseconds since the epoch, written as
    /// `Timestamp.description` writes it: milliseconds always, microseconds when not zero.
    /// NULL stays NULL.
    public static func utcText(_ micros: String) -> String {
        // The microseconds past the second, floored (right before 1970 too).
        let frac = "((\(micros) % 1000000 + 1000000) % 1000000)"
        return """
            (strftime('%Y-%m-%dT%H:%M:%S', (\(micros) - \(frac)) / 1000000, 'unixepoch') || \
            CASE WHEN \(frac) % 1000 = 0 THEN printf('.%03d', \(frac) / 1000) ELSE printf('.%06d', \(frac)) END || 'Z')
            """
    }
}

extension EventStore {
    /// One row per stored event in arrival order: duplicates, conflicts and quarantined lines
    /// are not events. `event` and `step` are as the line wrote them (unescaped).
    static let eventLogView = """
        CREATE VIEW event_log AS
        SELECT e.seq AS seq,
               n.text AS event,
               u.text AS user_id,
               f.text AS flow,
               s.text AS step,
               \(ReadableSQL.utcText("e.ts_us")) AS ts_utc,
               e.ts_us AS ts_us,
               e.ts_offset AS ts_offset_seconds,
               i.path AS input,
               e.line_no AS line_no
        FROM events e
        JOIN atoms n ON n.id = e.event
        JOIN atoms u ON u.id = e.user
        JOIN atoms f ON f.id = e.flow
        LEFT JOIN atoms s ON s.id = e.step
        JOIN inputs i ON i.id = e.input_id
        """

    /// Adds `events.event` and `events.step` (atom ids; step NULL when the line names none)
    /// and fills them in for the stored events from their lines.
    static func addEventColumns(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE events ADD COLUMN event INTEGER")
        try db.execute(sql: "ALTER TABLE events ADD COLUMN step INTEGER")
        var atoms = try InternTable(db, table: "atoms", column: "text", blob: false)
        func atom(_ text: String) throws -> Int64 {
            var text = text
            return try text.withUTF8 { try atoms.id($0).id }
        }
        let update = try db.makeStatement(sql: "UPDATE events SET event = ?, step = ? WHERE seq = ?")
        let read = try RawStatement(db, "SELECT seq, user, flow, body, ts_us, ts_offset FROM events WHERE seq > ? ORDER BY seq LIMIT ?")
        let reader = try StoredLineReader(db)
        // A chunk at a time: a statement reading `events` does not stay open over its updates.
        var after: Int64 = 0
        var rows: [(seq: Int64, event: Int64, step: Int64?)] = []
        repeat {
            rows.removeAll(keepingCapacity: true)
            read.int(1, after)
            read.int(2, Int64(Tuning.migrationChunk))
            try read.forEachRow("reading the log") {
                let r = try reader.recorded(seq: read.int64(0), user: read.int64(1), flow: read.int64(2),
                                               time: Timestamp(micros: read.int64(4), offsetSeconds: Int32(truncatingIfNeeded: read.int64(5))),
                                               body: read.bytes(3))
                rows.append((r.seq, try atom(r.event.rawName), try r.event.step.map(atom)))
            }
            for r in rows { try update.execute(arguments: [r.event, r.step, r.seq]) }
            after = rows.last?.seq ?? after
        } while !rows.isEmpty
    }
}
