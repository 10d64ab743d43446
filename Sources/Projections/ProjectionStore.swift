import Foundation
import FunnelModel
import EventStore
import GRDB

/// The journeys projection in the event store: one row per user and flow, folded from the
/// log, updated by ingest (in the input's transaction or the next one's; the watermark says
/// which events are in), rebuildable from the log.
public enum ProjectionStore {
    /// The projection's tables, registered after the store's own migrations.
    public static let migrations: [StoreMigration] = [
        StoreMigration(name: "projections-v1-journeys") { db in
            try db.create(table: "journeys") { t in
                t.column("flow", .text).notNull()
                t.column("user_id", .text).notNull()
                t.primaryKey(["flow", "user_id"])
                t.column("started_us", .integer)
                t.column("completed_us", .integer)
                t.column("last_us", .integer).notNull()
                t.column("current_step", .text)
                t.column("lane", .text)
                // The definition the journey was folded with; a changed definition refolds.
                t.column("definition", .text).notNull()
                t.column("data", .blob).notNull()
                // JourneyFacts for reports (NULL without a definition).
                t.column("facts", .blob)
            }
            try db.create(index: "journeys_last", on: "journeys", columns: ["last_us"])
            // Finding journeys folded with another definition reads this index, not the rows.
            try db.create(index: "journeys_definition", on: "journeys", columns: ["flow", "definition", "user_id"])
        },
        // The watermark: the journeys hold every event up to this seq. An ingest writes an
        // input's journeys after the input (in the next one's transaction); one killed in
        // between leaves events past the watermark, folded by whoever reads the store next.
        StoreMigration(name: "projections-v2-watermark") { db in
            try db.execute(sql: "CREATE TABLE journeys_watermark (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL)")
            try db.execute(sql: "INSERT INTO journeys_watermark (id, seq) VALUES (1, ?)", arguments: [EventStore.lastSeq(in: db)])
        },
        // The report facts in a narrow table of their own: a report scans those short rows,
        // not the journeys' whole rows with the folded journey.
        StoreMigration(name: "projections-v3-facts-table") { db in
            try db.execute(sql: """
                CREATE TABLE journey_facts (
                    flow TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    last_us INTEGER NOT NULL,
                    facts BLOB,
                    PRIMARY KEY (flow, user_id)
                ) WITHOUT ROWID
                """)
            try db.execute(sql: "INSERT INTO journey_facts (flow, user_id, last_us, facts) SELECT flow, user_id, last_us, facts FROM journeys")
            try db.execute(sql: "ALTER TABLE journeys DROP COLUMN facts")
        },
        // Readable from outside: each user's journey as text (see docs/store.md).
        StoreMigration(name: "projections-v4-journey-state-view") { db in
            try db.execute(sql: JourneyStateView.sql)
        },
        // Journeys folded with another definition are found by (flow, definition) alone: a
        // new journey's entry then goes after the others of its definition (by rowid), not
        // among them by user, and the index holds no user ids.
        StoreMigration(name: "projections-v5-definition-index") { db in
            try db.execute(sql: "DROP INDEX journeys_definition")
            try db.create(index: "journeys_definition", on: "journeys", columns: ["flow", "definition"])
        },
    ]
}
