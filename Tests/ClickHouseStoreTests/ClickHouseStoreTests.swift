import XCTest
import TestSupport
@testable import ClickHouseStore

/// The store on real servers (`ClickHouseServers`): its tables on every server, rows in and
/// out in RowBinary, and errors that name the server and the query.
final class ClickHouseStoreTests: XCTestCase {
    func running() throws -> ClickHouseServers.Running {
        if let reason = ClickHouseServers.unavailable {
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(reason) }
            throw XCTSkip(reason)
        }
        return try ClickHouseServers.shared()
    }

    func testMigrationsCreateTheTablesOnEveryServerOnce() throws {
        let servers = try running()
        let database = ClickHouseServers.database("schema")
        let location = try ClickHouseLocation(servers.cluster(database))
        let store = try ClickHouseStore(location: location)
        _ = try ClickHouseStore(location: location)
        for client in store.servers {
            let tables = String(decoding: try client.read("SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name",
                                                          doing: "listing"), as: UTF8.self)
            XCTAssertEqual(tables.split(separator: "\n"),
                           ["conflicts", "duplicates", "event_lines", "events", "events_shard", "input_flows", "inputs", "quarantine",
                            "schema_migrations", "shapes", "writers"])
            let applied = String(decoding: try client.read("SELECT count() FROM schema_migrations", doing: "counting"), as: UTF8.self)
            XCTAssertEqual(applied, "\(ClickHouseSchema.migrations.count)\n")
        }
        XCTAssertEqual(try store.committedAttempts(), [])

        let single = try ClickHouseStore(location: try ClickHouseLocation(servers.single(database)))
        let tables = String(decoding: try single.coordinator.read("EXISTS TABLE events_shard", doing: "checking"), as: UTF8.self)
        XCTAssertEqual(tables, "0\n")
    }

    func testAStoreWithoutTheIdHashGetsItForItsOldRowsEvenAfterAKilledMigration() throws {
        let servers = try running()
        let database = ClickHouseServers.database("upgrade")
        let location = try ClickHouseLocation(servers.cluster(database))
        let store = try ClickHouseStore(location: location)
        // Back to v1 as an older funnel left it: no id_hash column, no v2 record; one shard
        // is as a kill between its ALTER and the record leaves it (column there, no record).
        for (i, client) in store.servers.enumerated() {
            try client.execute("ALTER TABLE events DROP COLUMN id_hash", doing: "downgrading")
            if i > 0 { try client.execute("ALTER TABLE events_shard DROP COLUMN id_hash", doing: "downgrading") }
            try client.execute("TRUNCATE TABLE schema_migrations", doing: "downgrading")
            try client.execute("INSERT INTO schema_migrations (name) VALUES ('v1-events'), ('v1-ledger')", doing: "downgrading")
        }
        var rows = RowBinaryWriter()
        for (seq, user) in ["u-1", "u-2", "u-3", "u-4"].enumerated() {
            rows.uint64(UInt64(seq) + 1)
            rows.string("e-\(user)")
            rows.string(user)
        }
        try store.coordinator.insert(into: "events", columns: ["seq", "event_id", "user_id"], rows: rows, doing: "inserting",
                                     settings: ["insert_distributed_sync": "1"])

        let upgraded = try ClickHouseStore(location: location)
        let check = String(decoding: try upgraded.coordinator.read("""
            SELECT count(), countIf(id_hash = cityHash64(event_id)) FROM events
            PREWHERE id_hash IN (SELECT cityHash64(arrayJoin(['e-u-1', 'e-u-4', 'e-missing'])))
            """, doing: "checking"), as: UTF8.self)
        XCTAssertEqual(check, "2\t2\n")
        for client in upgraded.servers {
            let applied = String(decoding: try client.read("SELECT count() FROM schema_migrations WHERE name = 'v2-event-id-hash'",
                                                           doing: "counting"), as: UTF8.self)
            XCTAssertEqual(applied, "1\n")
        }
    }

    /// A store from before line shapes (v4: every line whole in `line`) gets them when opened,
    /// its rows untouched: each still reads as its whole line, through funnel and through the
    /// `event_lines` view, and its `line_length` is its line's.
    func testAStoreFromBeforeShapesKeepsItsLinesWhole() throws {
        let servers = try running()
        let location = try ClickHouseLocation(servers.cluster(ClickHouseServers.database("preshapes")))
        let store = try ClickHouseStore(location: location)
        for client in store.servers {
            try client.execute("DROP TABLE event_lines", doing: "downgrading")
            try client.execute("DROP TABLE shapes", doing: "downgrading")
            for table in ["events", "events_shard"] {
                for column in ["shape", "cut_values", "line_length"] {
                    try client.execute("ALTER TABLE \(table) DROP COLUMN \(column)", doing: "downgrading")
                }
            }
            try client.execute("TRUNCATE TABLE schema_migrations", doing: "downgrading")
            try client.execute("""
                INSERT INTO schema_migrations (name) VALUES ('v1-events'), ('v1-ledger'), ('v2-event-id-hash'), ('v3-writers'),
                ('v4-input-sources')
                """, doing: "downgrading")
        }
        let lines = [#"{"event_id":"e-1","user_id":"u-1","flow":"glp1","event":"onboarding.started","ts":"2026-10-01T08:00:00Z"}"#,
                     #"{"event_id":"e-2","user_id":"u-2","flow":"glp1","event":"onboarding.started","ts":"2026-10-01T09:00:00+02:00"}"#]
        var rows = RowBinaryWriter()
        for (i, line) in lines.enumerated() {
            rows.uint64(UInt64(i) + 1)
            rows.string("e-\(i + 1)")
            rows.string("u-\(i + 1)")
            rows.string(line)
        }
        try store.coordinator.insert(into: "events", columns: ["seq", "event_id", "user_id", "line"], rows: rows, doing: "inserting",
                                     settings: ["insert_distributed_sync": "1"])

        let upgraded = try ClickHouseStore(location: location)
        let shapes = try ClickHouseShapes.load(upgraded)
        var got: [String] = [], lengths: [UInt32] = []
        try upgraded.rows(upgraded.coordinator, "SELECT seq, line_length, \(ClickHouseShapes.lineColumns) FROM events ORDER BY seq",
                          doing: "reading") { r in
            let seq = Int64(try r.uint64())
            lengths.append(try r.uint32())
            got.append(String(decoding: try shapes.line(from: &r, seq: seq), as: UTF8.self))
        }
        XCTAssertEqual(got, lines)
        XCTAssertEqual(lengths, lines.map { UInt32($0.utf8.count) })
        let viewed = String(decoding: try upgraded.coordinator.read("SELECT line FROM event_lines ORDER BY seq FORMAT TSVRaw",
                                                                    doing: "reading the view"), as: UTF8.self)
        XCTAssertEqual(viewed, lines.joined(separator: "\n") + "\n")
    }

    /// A writer says that it runs until it ends; one that goes silent without ending (killed)
    /// counts as running only until `Tuning.writerGoneAfter`; a store from before the table
    /// gets it when opened.
    func testWritersSayWhoWritesUntilTheyEndOrGoSilent() throws {
        let servers = try running()
        let location = try ClickHouseLocation(servers.cluster(ClickHouseServers.database("writers")))
        let store = try ClickHouseStore(location: location)
        XCTAssertEqual(try store.runningWriters(), [])
        let before = Date().timeIntervalSince1970
        let ingest = try store.startWriting("ingest")
        let rebuild = try store.startWriting("rebuild")
        let running = try store.runningWriters()
        XCTAssertEqual(Set(running.map(\.command)), ["ingest", "rebuild"])
        for writer in running {
            XCTAssertEqual(writer.pid, Int(getpid()))
            XCTAssertEqual(writer.host, ProcessInfo.processInfo.hostName)
            XCTAssertLessThanOrEqual(writer.silentSeconds, 2)
            XCTAssertEqual(Double(writer.startedAt.micros) / 1e6, before, accuracy: 3)
        }
        // The heartbeat keeps a writer's row fresh while it runs.
        Thread.sleep(forTimeInterval: Tuning.writerHeartbeat + 1.5)
        let beating = try store.runningWriters()
        XCTAssertEqual(beating.count, 2)
        XCTAssertTrue(beating.allSatisfy { $0.silentSeconds <= 3 }, "\(beating)")
        ingest.end()
        ingest.end()
        XCTAssertEqual(try store.runningWriters().map(\.command), ["rebuild"])
        rebuild.end()
        XCTAssertEqual(try store.runningWriters(), [])
        // The coordinator's table only.
        for server in store.servers.dropFirst() {
            XCTAssertEqual(String(decoding: try server.read("SELECT count() FROM writers", doing: "counting"), as: UTF8.self), "0\n")
        }

        // A killed writer's row: no end, its last heartbeat as old as the timeout and more.
        try store.coordinator.execute("""
            INSERT INTO writers (run, command, host, pid, started, beat, ended)
            VALUES (7, 'ingest', 'gone', 99, now() - 600, now() - \(Tuning.writerGoneAfter + 5), 0)
            """, doing: "inserting")
        XCTAssertEqual(try store.runningWriters(), [])
        XCTAssertEqual(try store.runningWriters(goneAfter: Tuning.writerGoneAfter + 60).map(\.host), ["gone"])

        // A store from before the table: created when the store is opened.
        for client in store.servers {
            try client.execute("DROP TABLE writers", doing: "downgrading")
            try client.execute("TRUNCATE TABLE schema_migrations", doing: "downgrading")
            try client.execute("INSERT INTO schema_migrations (name) VALUES ('v1-events'), ('v1-ledger'), ('v2-event-id-hash')",
                               doing: "downgrading")
        }
        let reopened = try ClickHouseStore(location: location)
        XCTAssertEqual(try reopened.runningWriters(), [])
    }

    func testRowsGoInAndComeBackInRowBinary() throws {
        let servers = try running()
        let store = try ClickHouseStore(location: try ClickHouseLocation(servers.single(ClickHouseServers.database("rows"))))
        var rows = RowBinaryWriter()
        let texts = ["plain", "with 'quote' and \\ and é", String(repeating: "x", count: 300)]
        for (i, text) in texts.enumerated() {
            rows.string("e\(i)")
            rows.uint64(UInt64(i) + 1)
            rows.int64(-Int64(i))
            rows.uint32(UInt32(i))
            rows.nullableString(i == 1 ? nil : text)
            rows.string(text)
        }
        try store.coordinator.execute("CREATE TABLE t (id String, n UInt64, s Int64, u UInt32, maybe Nullable(String), text String) ENGINE = Memory",
                                      doing: "creating t")
        try store.coordinator.insert(into: "t", columns: ["id", "n", "s", "u", "maybe", "text"], rows: rows, doing: "inserting")
        var reader = RowBinaryReader(try store.coordinator.read("SELECT id, n, s, u, maybe, text FROM t ORDER BY id FORMAT RowBinary",
                                                                doing: "reading"), doing: "reading")
        for (i, text) in texts.enumerated() {
            XCTAssertEqual(try reader.string(), "e\(i)")
            XCTAssertEqual(try reader.uint64(), UInt64(i) + 1)
            XCTAssertEqual(try reader.int64(), -Int64(i))
            XCTAssertEqual(try reader.uint32(), UInt32(i))
            XCTAssertEqual(try reader.nullableString(), i == 1 ? nil : text)
            XCTAssertEqual(try reader.string(), text)
        }
        XCTAssertTrue(reader.isAtEnd)
    }

    func testErrorsNameTheServerAndTheQuery() throws {
        let servers = try running()
        let store = try ClickHouseStore(location: try ClickHouseLocation(servers.single(ClickHouseServers.database("errors"))))
        XCTAssertThrowsError(try store.coordinator.read("SELECT nope FROM missing_table", doing: "reading a table")) { error in
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix("clickhouse 127.0.0.1:\(servers.ports[0]): while reading a table: HTTP 404: Code: 60"), message)
            XCTAssertTrue(message.contains("(query: SELECT nope FROM missing_table)"), message)
            XCTAssertEqual((error as? ClickHouseError)?.kind, .server)
        }
        // Nothing listens on port 1: the read is tried again, then fails saying so.
        let nowhere = ClickHouseClient(server: ClickHouseServer(host: "127.0.0.1", port: 1), database: "x", user: "ana", password: "hunter2")
        XCTAssertThrowsError(try nowhere.read("SELECT 1", doing: "checking")) { error in
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix("clickhouse 127.0.0.1:1: while checking: no answer"), message)
            XCTAssertFalse(message.contains("hunter2"), message)
            XCTAssertEqual((error as? ClickHouseError)?.kind, .unreachable)
        }
    }
}
