import XCTest
import Foundation

/// `scripts/clickhouse-cluster` starts a single node and a two-shard cluster on loopback as
/// plain processes and stops them by PID; the way out to ClickHouse that docs/store.md shows
/// (`funnel export` into a table) works on both.
final class ClickHouseScriptTests: XCTestCase {
    static let server = "/usr/sbin/clickhouse-server"

    func testClusterStartsLoadsTheExportAndStops() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.server) else {
            let message = "clickhouse-server is not installed: apt-get install -y clickhouse-server"
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(message) }
            throw XCTSkip(message)
        }
        // Ports of this run only: three HTTP ports from `base`, and TCP/interserver above them.
        let base = 30_000 + Int(getpid() % 400) * 3
        let dir = tempDir().appendingPathComponent("clickhouse")
        let env = ProcessInfo.processInfo.environment.merging(["FUNNEL_CH_PORT": String(base)]) { $1 }
        let start = try run(["/bin/bash", script, "start", dir.path], environment: env)
        defer { _ = try? run(["/bin/bash", script, "stop", dir.path], environment: env) }
        XCTAssertEqual(start.status, 0, start.stderr)
        XCTAssertTrue(start.stdout.contains("clickhouse://127.0.0.1:\(base + 1),127.0.0.1:\(base + 2)/funnel?cluster=events"),
                      start.stdout)
        let pids = try ["single", "shard1", "shard2"].map { name -> Int32 in
            let text = try String(contentsOf: dir.appendingPathComponent("\(name)/server.pid"), encoding: .utf8)
            return try XCTUnwrap(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        XCTAssertTrue(pids.allSatisfy { kill($0, 0) == 0 })

        // The store's lines, exported.
        let store = tempDir().appendingPathComponent("ch.sqlite").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path]).status, 0)
        let export = tempDir().appendingPathComponent("glp1.ndjson")
        XCTAssertEqual(try runFunnel(["export", "--store", store, "--output", export.path]).status, 0)
        let lines = try String(contentsOf: export, encoding: .utf8).split(separator: "\n").count
        XCTAssertGreaterThan(lines, 10_000)
        let columns = "event_id String, event String, user_id String, ts String, flow String, step Nullable(String)"
        let insert = "INSERT INTO exported.events (event_id, event, user_id, ts, flow, step) FORMAT JSONEachRow"

        // One server.
        try query(base, "CREATE DATABASE exported")
        try query(base, "CREATE TABLE exported.events (\(columns)) ENGINE = MergeTree ORDER BY (flow, user_id, ts)")
        try query(base, insert, body: export, settings: "input_format_skip_unknown_fields=1")
        XCTAssertEqual(try query(base, "SELECT count() FROM exported.events"), "\(lines)")

        // Two shards: a local table on each, a Distributed table sharded by user over them.
        for port in [base + 1, base + 2] {
            try query(port, "CREATE DATABASE exported")
            try query(port, "CREATE TABLE exported.events_local (\(columns)) ENGINE = MergeTree ORDER BY (flow, user_id, ts)")
            try query(port, "CREATE TABLE exported.events AS exported.events_local "
                      + "ENGINE = Distributed(events, exported, events_local, cityHash64(user_id))")
        }
        try query(base + 1, insert, body: export, settings: "input_format_skip_unknown_fields=1&insert_distributed_sync=1")
        XCTAssertEqual(try query(base + 2, "SELECT count() FROM exported.events"), "\(lines)")
        let shards = try [base + 1, base + 2].map { try XCTUnwrap(Int(try query($0, "SELECT count() FROM exported.events_local"))) }
        XCTAssertEqual(shards.reduce(0, +), lines)
        XCTAssertTrue(shards.allSatisfy { $0 > lines / 4 }, "\(shards)")
        // Each user's events on one shard.
        let users = try [base + 1, base + 2].map { try query($0, "SELECT uniqExact(user_id) FROM exported.events_local") }
        XCTAssertEqual(try query(base + 1, "SELECT uniqExact(user_id) FROM exported.events"),
                       String(users.compactMap { Int($0) }.reduce(0, +)))

        // The README's three lines, as written (its ports moved to this run's).
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try XCTUnwrap(readme.components(separatedBy: "```bash\n").dropFirst().first?.components(separatedBy: "```").first)
        let steps = block.split(separator: "\n").map { $0.components(separatedBy: "  #")[0].trimmingCharacters(in: .whitespaces) }
        XCTAssertEqual(steps.count, 3)
        XCTAssertEqual(steps.first, "scripts/clickhouse-cluster start")
        XCTAssertEqual(steps.last, "scripts/clickhouse-cluster stop")
        let words = steps[1].replacingOccurrences(of: ":8124", with: ":\(base + 1)").replacingOccurrences(of: ":8125", with: ":\(base + 2)")
            .replacingOccurrences(of: "'", with: "").split(separator: " ").map(String.init)
        XCTAssertEqual(words.first, "funnel")
        let example = tempDir()
        try FileManager.default.createSymbolicLink(at: example.appendingPathComponent("sample-data"), withDestinationURL: sampleData)
        let report = try runFunnel(Array(words.dropFirst()), directory: example)
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertEqual(report.stdout, try String(contentsOf: packageRoot.appendingPathComponent("reports/glp1-cohort-glp1.txt"), encoding: .utf8))

        let stop = try run(["/bin/bash", script, "stop", dir.path], environment: env)
        XCTAssertEqual(stop.status, 0, stop.stderr)
        XCTAssertTrue(pids.allSatisfy { kill($0, 0) != 0 }, "a server outlived stop")
    }

    var script: String { packageRoot.appendingPathComponent("scripts/clickhouse-cluster").path }

    /// A query over HTTP (curl), the body from a file when given; the answer, trimmed.
    @discardableResult
    func query(_ port: Int, _ sql: String, body: URL? = nil, settings: String = "") throws -> String {
        var url = "http://127.0.0.1:\(port)/"
        var args = ["curl", "-sS", "--fail-with-body"]
        if let body {
            let escaped = sql.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? sql
            url += "?query=" + escaped + (settings.isEmpty ? "" : "&" + settings)
            args += ["--data-binary", "@" + body.path]
        } else {
            url += settings.isEmpty ? "" : "?" + settings
            args += ["--data-binary", sql]
        }
        let r = try run(["/usr/bin/env"] + args + [url])
        XCTAssertEqual(r.status, 0, "\(sql): \(r.stdout) \(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func run(_ args: [String], environment: [String: String]? = nil) throws -> RunResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: args[0])
        p.arguments = Array(args.dropFirst())
        if let environment { p.environment = environment }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return RunResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                         stderr: String(decoding: e, as: UTF8.self))
    }
}
