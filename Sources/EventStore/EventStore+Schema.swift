import GRDB

extension EventStore {
    /// The store's migrations, in order. A migration that shipped is never edited; schema
    /// changes are new migrations appended here.
    static func registerMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v1: event log, ledger, duplicates, conflicts, quarantine") { db in
            // Every input read, one row per distinct content (sha256).
            try db.execute(sql: """
                CREATE TABLE inputs (
                    id INTEGER PRIMARY KEY,
                    path TEXT NOT NULL,
                    sha256 TEXT NOT NULL UNIQUE,
                    size INTEGER NOT NULL,
                    lines INTEGER NOT NULL,
                    accepted INTEGER NOT NULL,
                    duplicates INTEGER NOT NULL,
                    conflicts INTEGER NOT NULL,
                    quarantined INTEGER NOT NULL,
                    unplanned INTEGER NOT NULL,
                    outcome TEXT NOT NULL CHECK (outcome IN ('complete', 'partial')),
                    error TEXT,
                    started_us INTEGER NOT NULL,
                    finished_us INTEGER NOT NULL
                )
                """)
            // The append-only log: seq is the arrival order; line is the original text.
            try db.execute(sql: """
                CREATE TABLE events (
                    seq INTEGER PRIMARY KEY,
                    event_id TEXT NOT NULL UNIQUE,
                    user_id TEXT NOT NULL,
                    flow TEXT NOT NULL,
                    name TEXT NOT NULL,
                    step TEXT,
                    ts_us INTEGER NOT NULL,
                    ts_offset INTEGER NOT NULL,
                    input_id INTEGER NOT NULL REFERENCES inputs(id),
                    line_no INTEGER NOT NULL,
                    line TEXT NOT NULL
                )
                """)
            try db.execute(sql: "CREATE INDEX events_by_user ON events(user_id, flow, ts_us, seq)")
            try db.execute(sql: """
                CREATE TABLE duplicates (
                    id INTEGER PRIMARY KEY,
                    event_id TEXT NOT NULL,
                    input_id INTEGER NOT NULL REFERENCES inputs(id),
                    line_no INTEGER NOT NULL,
                    arrived_us INTEGER NOT NULL
                )
                """)
            try db.execute(sql: "CREATE INDEX duplicates_by_event ON duplicates(event_id)")
            try db.execute(sql: """
                CREATE TABLE conflicts (
                    id INTEGER PRIMARY KEY,
                    event_id TEXT NOT NULL,
                    input_id INTEGER NOT NULL REFERENCES inputs(id),
                    line_no INTEGER NOT NULL,
                    arrived_us INTEGER NOT NULL,
                    line TEXT NOT NULL
                )
                """)
            try db.execute(sql: "CREATE INDEX conflicts_by_event ON conflicts(event_id)")
            try db.execute(sql: """
                CREATE TABLE quarantine (
                    id INTEGER PRIMARY KEY,
                    input_id INTEGER NOT NULL REFERENCES inputs(id),
                    path TEXT NOT NULL,
                    line_no INTEGER NOT NULL,
                    byte_offset INTEGER NOT NULL,
                    reason_code TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    raw BLOB NOT NULL
                )
                """)
            // Per flow: how many events and their time span, kept by ingest so that listing
            // flows and finding the latest event time never scan the log.
            try db.execute(sql: """
                CREATE TABLE flow_summary (
                    flow TEXT PRIMARY KEY,
                    events INTEGER NOT NULL,
                    first_ts_us INTEGER NOT NULL,
                    last_ts_us INTEGER NOT NULL
                ) WITHOUT ROWID
                """)
        }
    }
}
