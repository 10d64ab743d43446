import GRDB

extension EventStore {
    /// The log as a row an event, as migration v1 made it (v5 adds `event` and `step`; v8
    /// moves its rows into `event_blocks`).
    static let eventRowsTable = """
        CREATE TABLE events (
            seq INTEGER PRIMARY KEY,
            id_hash INTEGER NOT NULL,
            user INTEGER NOT NULL REFERENCES atoms(id),
            flow INTEGER NOT NULL REFERENCES atoms(id),
            ts_us INTEGER NOT NULL,
            ts_offset INTEGER NOT NULL,
            input_id INTEGER NOT NULL REFERENCES inputs(id),
            line_no INTEGER NOT NULL,
            body BLOB NOT NULL
        )
        """

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
            // Interned strings: user ids, flows, event names, steps (as written in the line).
            try db.execute(sql: "CREATE TABLE atoms (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)")
            // Line shapes: a line with its envelope values cut out (see StoredLine.swift).
            try db.execute(sql: "CREATE TABLE shapes (id INTEGER PRIMARY KEY, skeleton BLOB NOT NULL UNIQUE)")
            // The append-only log: seq is the arrival order. `body` gives back the original
            // line byte for byte (its shape and the values cut out of it, or the line itself);
            // id_hash is the event's slot: the 64-bit hash of its event_id, or the next free
            // value after it when another id holds it (full compare on a match; see Ingestor).
            try db.execute(sql: EventStore.eventRowsTable)
            try db.execute(sql: "CREATE UNIQUE INDEX events_by_id_hash ON events(id_hash)")
            try db.execute(sql: "CREATE INDEX events_by_user ON events(user, flow, ts_us, seq)")
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
        migrator.registerMigration("v2: user runs instead of a per-event user index") { db in
            try EventStore.migrateToUserRuns(db)
        }
        // The dedupe index: (hash, seq) pairs in hash ranges instead of a unique index on
        // events(id_hash), which cost a random B-tree insert per event (see EventIDs).
        // events.id_hash now holds the id's hash itself (never a probed slot).
        migrator.registerMigration("v3: event ids in hash ranges instead of a unique index") { db in
            try EventIDs.build(in: db)
        }
        // The Bloom filter of stored ids, saved by each ingest with the last seq it holds, so
        // that the next one adds only the events after it instead of reading every stored id
        // (see IDFilter.load). No row: the filter is built from `event_ids`.
        migrator.registerMigration("v4: saved id filter") { db in
            try db.execute(sql: """
                CREATE TABLE id_filter (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    through_seq INTEGER NOT NULL,
                    blocks INTEGER NOT NULL,
                    count INTEGER NOT NULL,
                    words BLOB NOT NULL
                )
                """)
        }
        // Readable from outside: each event's name and step as columns (atoms, like user and
        // flow), filled in for the events already stored, and the `event_log` view.
        migrator.registerMigration("v5: event and step columns, event_log view") { db in
            try EventStore.addEventColumns(db)
            try db.execute(sql: EventStore.eventLogView)
        }
        // An input longer than one transaction commits in segments (see `Ingestor`): while
        // it is unfinished its ledger row says after which line the next ingest goes on, and
        // how many new shapes the input may still add. Both NULL once the input is done.
        migrator.registerMigration("v6: resumable inputs") { db in
            try db.execute(sql: "ALTER TABLE inputs ADD COLUMN resume_line INTEGER")
            try db.execute(sql: "ALTER TABLE inputs ADD COLUMN resume_shapes INTEGER")
        }
        // An input read through a source (`ingest --source`, a vendor's export) records it:
        // the definition as resolved (its file format) and the default flow, with which its
        // stored lines, the vendor's own, are mapped again when read. NULL: funnel's own lines.
        migrator.registerMigration("v7: input sources") { db in
            try db.execute(sql: "ALTER TABLE inputs ADD COLUMN source TEXT")
            try db.execute(sql: "ALTER TABLE inputs ADD COLUMN source_flow TEXT")
        }
        // The log as rows of many events (`EventBlock`): SQLite's cost of a row was the
        // largest part of writing it. `events` becomes a view of the same columns (but the
        // id hash), and `event_log` reads it as before.
        migrator.registerMigration("v8: the log in blocks of events") { db in
            try EventBlocks.migrate(db)
        }
    }
}
