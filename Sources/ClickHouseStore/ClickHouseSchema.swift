/// The ClickHouse store's tables, created by versioned migrations on every listed server
/// (`ON CLUSTER` needs ZooKeeper, which a plain cluster lacks). Events are sharded by user:
/// on a cluster each server holds `events_shard`, under a `Distributed` table `events`;
/// on one server `events` holds them. The ledger, duplicates, conflicts and quarantine are
/// small: the first server's copies are the store's (the others stay empty). A row counts
/// once the ledger holds its input's `attempt` (see docs/clickhouse.md).
public enum ClickHouseSchema {
    /// A migration: a name recorded in `schema_migrations` once its statements ran.
    public struct Migration: Sendable {
        public var name: String
        /// The statements for a server of a store with this layout.
        public var statements: @Sendable (Layout) -> [Statement]

        public init(name: String, statements: @escaping @Sendable (Layout) -> [Statement]) {
            self.name = name
            self.statements = statements
        }
    }

    /// A step of a migration. Each can run again after a kill between it and the migration's
    /// record: SQL with `IF NOT EXISTS`, or a column added only when the table lacks it
    /// (ClickHouse 18.16 has no `ADD COLUMN IF NOT EXISTS`).
    public enum Statement: Sendable, Equatable, ExpressibleByStringInterpolation {
        case sql(String)
        /// `ALTER TABLE table ADD COLUMN column definition`, skipped when the column exists.
        case addColumn(table: String, column: String, definition: String)

        public init(stringLiteral value: String) { self = .sql(value) }
    }

    /// What the statements depend on: the database, and the cluster when sharded.
    public struct Layout: Sendable {
        public var database: String
        public var cluster: String?

        /// The table a server keeps its own events in.
        public var shardEvents: String { cluster == nil ? "events" : "events_shard" }
    }

    public static let migrations: [Migration] = [
        Migration(name: "v1-events") { layout in
            var statements: [Statement] = ["""
                CREATE TABLE IF NOT EXISTS \(layout.shardEvents) (
                    seq UInt64, attempt UInt64, input_id UInt32, line_no UInt32,
                    event_id String, user_id String, flow String, step Nullable(String), event String,
                    ts_us Int64, line String
                ) ENGINE = MergeTree() ORDER BY (flow, user_id, ts_us, seq)
                """]
            if let cluster = layout.cluster {
                statements.append("""
                    CREATE TABLE IF NOT EXISTS events AS events_shard
                    ENGINE = Distributed(\(cluster), \(layout.database), events_shard, cityHash64(user_id))
                    """)
            }
            return statements
        },
        Migration(name: "v1-ledger") { _ in
            ["""
                CREATE TABLE IF NOT EXISTS inputs (
                    id UInt32, attempt UInt64, path String, sha256 String, size Int64,
                    lines UInt64, accepted UInt64, duplicates UInt64, conflicts UInt64, quarantined UInt64, unplanned UInt64,
                    outcome String, error Nullable(String), started_us Int64, finished_us Int64
                ) ENGINE = MergeTree() ORDER BY id
                """,
             """
                CREATE TABLE IF NOT EXISTS input_flows (
                    attempt UInt64, flow String, events UInt64, first_ts_us Int64, last_ts_us Int64
                ) ENGINE = MergeTree() ORDER BY (flow, attempt)
                """,
             """
                CREATE TABLE IF NOT EXISTS duplicates (
                    event_id String, attempt UInt64, input_id UInt32, line_no UInt32, arrived_us Int64
                ) ENGINE = MergeTree() ORDER BY (event_id, input_id, line_no)
                """,
             """
                CREATE TABLE IF NOT EXISTS conflicts (
                    event_id String, attempt UInt64, input_id UInt32, line_no UInt32, arrived_us Int64, line String
                ) ENGINE = MergeTree() ORDER BY (event_id, input_id, line_no)
                """,
             """
                CREATE TABLE IF NOT EXISTS quarantine (
                    attempt UInt64, input_id UInt32, path String, line_no UInt32, byte_offset Int64,
                    reason_code String, reason String, raw String
                ) ENGINE = MergeTree() ORDER BY (input_id, line_no)
                """]
        },
        // A chunk's ids are looked up by this hash first: 8 bytes a row to read, not the id.
        Migration(name: "v2-event-id-hash") { layout in
            let definition = "UInt64 DEFAULT cityHash64(event_id)"
            var statements: [Statement] = [.addColumn(table: layout.shardEvents, column: "id_hash", definition: definition)]
            if layout.cluster != nil { statements.append(.addColumn(table: "events", column: "id_hash", definition: definition)) }
            return statements
        },
        // Who writes the store now (`ClickHouseStore+Writers`): the first server's table, one
        // row per writer once merged; times are the server's.
        Migration(name: "v3-writers") { _ in
            ["""
                CREATE TABLE IF NOT EXISTS writers (
                    run UInt64, command String, host String, pid UInt32, started DateTime,
                    beat DateTime DEFAULT now(), ended UInt8
                ) ENGINE = ReplacingMergeTree(beat) ORDER BY run
                """]
        },
        // An input read through a source (`ingest --source`, a vendor's export) records it, as
        // the SQLite store's v7 does: its stored lines are mapped again when read. NULL: native.
        Migration(name: "v4-input-sources") { _ in
            [.addColumn(table: "inputs", column: "source", definition: "Nullable(String)"),
             .addColumn(table: "inputs", column: "source_flow", definition: "Nullable(String)")]
        },
        // A line is kept as its shape and the values cut out of it (`ClickHouseShapes`), rows
        // written before keep it whole (shape 0); `line_length` sizes reads without the line.
        // `event_lines` gives SQL readers the line rebuilt.
        Migration(name: "v5-line-shapes") { layout in
            var statements: [Statement] = ["CREATE TABLE IF NOT EXISTS shapes (id UInt64, skeleton String) ENGINE = MergeTree() ORDER BY id"]
            for table in [layout.shardEvents] + (layout.cluster == nil ? [] : ["events"]) {
                statements += [.addColumn(table: table, column: "shape", definition: "UInt64"),
                               .addColumn(table: table, column: "cut_values", definition: "Array(String)"),
                               .addColumn(table: table, column: "line_length", definition: "UInt32 DEFAULT length(line)")]
            }
            statements.append(.sql(ClickHouseShapes.eventLinesView))
            return statements
        },
    ]
}
