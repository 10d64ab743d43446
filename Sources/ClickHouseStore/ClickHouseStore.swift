import Foundation

/// A funnel store in ClickHouse: one server, or the shards of a cluster. The first server
/// (the coordinator) keeps the ledger; every server keeps its shard of the events.
public final class ClickHouseStore: Sendable {
    public let location: ClickHouseLocation
    /// One client per listed server, in the cluster's shard order.
    public let servers: [ClickHouseClient]
    public var coordinator: ClickHouseClient { servers[0] }
    public let layout: ClickHouseSchema.Layout
    /// The log's migrations, then those of the modules that keep tables beside it.
    private let migrations: [ClickHouseSchema.Migration]

    /// Connects to every server and brings its database and tables up to date: the log's
    /// tables, then `extra` (another module's, e.g. projections).
    public init(location: ClickHouseLocation, migrations extra: [ClickHouseSchema.Migration] = []) throws {
        self.location = location
        servers = location.servers.map {
            ClickHouseClient(server: $0, database: location.database, user: location.user, password: location.password,
                             compress: location.compress)
        }
        layout = ClickHouseSchema.Layout(database: location.database, cluster: location.cluster)
        migrations = ClickHouseSchema.migrations + extra
        for server in servers { try migrate(server) }
    }

    public var isCluster: Bool { layout.cluster != nil }

    /// The attempts whose inputs the ledger holds: only their rows count.
    public func committedAttempts() throws -> [UInt64] {
        var out: [UInt64] = []
        try rows(coordinator, "SELECT attempt FROM inputs ORDER BY id", doing: "reading the ledger of \(location)") { out.append(try $0.uint64()) }
        return out
    }

    /// Creates the database and the tables a server lacks, in migration order.
    private func migrate(_ server: ClickHouseClient) throws {
        let doing = "preparing the database \(location.database)"
        try server.execute("CREATE DATABASE IF NOT EXISTS \(location.database)", doing: doing, useDatabase: false)
        try server.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name String, applied_us Int64) ENGINE = MergeTree() ORDER BY name",
                           doing: doing)
        var applied = Set<String>()
        try rows(server, "SELECT name FROM schema_migrations", doing: doing) { applied.insert(try $0.string()) }
        for migration in migrations where !applied.contains(migration.name) {
            for statement in migration.statements(layout) {
                try apply(statement, on: server, doing: "applying the migration \(migration.name)")
            }
            var row = RowBinaryWriter()
            row.string(migration.name)
            row.int64(Int64(Date().timeIntervalSince1970 * 1e6))
            try server.insert(into: "schema_migrations", columns: ["name", "applied_us"], rows: row,
                              doing: "recording the migration \(migration.name)")
        }
    }

    private func apply(_ statement: ClickHouseSchema.Statement, on server: ClickHouseClient, doing: String) throws {
        switch statement {
        case .sql(let sql):
            try server.execute(sql, doing: doing)
        case .addColumn(let table, let column, let definition):
            var present = false
            try rows(server, """
                SELECT count() FROM system.columns
                WHERE database = \(ClickHouseSQL.quote(location.database)) AND table = \(ClickHouseSQL.quote(table))
                  AND name = \(ClickHouseSQL.quote(column))
                """, doing: doing) { present = try $0.uint64() > 0 }
            if !present { try server.execute("ALTER TABLE \(table) ADD COLUMN \(column) \(definition)", doing: doing) }
        }
    }
}
