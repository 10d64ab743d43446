import XCTest
import Foundation
import TestSupport
import ClickHouseStore

/// The same commands on SQLite, on one ClickHouse server and on a two-shard cluster give the
/// same output byte for byte (the store's name aside), for every seed flow's sample data and
/// the broken and duplicate files; a killed ClickHouse ingest run again gives the same store.
final class ClickHouseBackendTests: XCTestCase {
    static let flows = ["glp1", "baby-basics", "screentime-rewards", "shieldai", "trendy"]

    func servers() throws -> ClickHouseServers.Running {
        if let reason = ClickHouseServers.unavailable {
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(reason) }
            throw XCTSkip(reason)
        }
        return try ClickHouseServers.shared()
    }

    /// `funnel ARGS --store STORE`; a failure fails the test. Standard output and error, with
    /// the store's name replaced by `STORE` and the wall-clock times of the ingest (when a copy
    /// arrived, how long it took) by `T`: the stores were filled by separate runs.
    func run(_ args: [String], store: String, expect status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let r = try runFunnel(args + ["--store", store])
        XCTAssertEqual(r.status, status, "\(args) on \(store): \(r.stderr)", file: file, line: line)
        return (r.stdout + "\n--- stderr\n" + r.stderr).replacingOccurrences(of: store, with: "STORE")
            .replacingOccurrences(of: #"\(ingested [^)]*\)"#, with: "(ingested T)", options: .regularExpression)
            .replacingOccurrences(of: #""(elapsed_seconds|events_per_second)":[0-9.e+-]+"#, with: #""$1":0"#, options: .regularExpression)
    }

    func testEveryCommandGivesTheSameOutputOnSQLiteOneServerAndTwoShards() throws {
        let servers = try servers()
        let stores = [tempDir().appendingPathComponent("s.sqlite").path,
                      servers.single(ClickHouseServers.database("backend")),
                      servers.cluster(ClickHouseServers.database("backend"))]
        let inputs = (Self.flows + ["edge", "bad"]).map { sampleData.appendingPathComponent($0).path }
        // Ingest: the same counts, quarantine and failures (partial gzip inputs: exit 2).
        let ingested = try stores.map { try run(["ingest", "--format", "json"] + inputs, store: $0, expect: 2) }
        let summary = try jsonObject(String(ingested[0].prefix { $0 != "\n" }))
        XCTAssertEqual(summary["accepted"] as? Int, 25_993)
        XCTAssertEqual(summary["quarantined"] as? Int, 41)
        XCTAssertEqual(ingested[1], ingested[0])
        XCTAssertEqual(ingested[2], ingested[0])
        // A second run skips every input (exit 2: two are partial), alike on every store.
        let again = try stores.map { try run(["ingest", "--format", "json"] + inputs, store: $0, expect: 2) }
        XCTAssertEqual((try jsonObject(String(again[0].prefix { $0 != "\n" }))["skipped"] as? [Any])?.count, 43)
        XCTAssertEqual(again[1], again[0])
        XCTAssertEqual(again[2], again[0])

        var commands: [[String]] = [
            ["report", "--flow", "glp1", "--cohort", "glp1"],
            ["report", "--flow", "glp1", "--cohort", "glp1", "--format", "json"],
            ["report", "--flow", "glp1", "--format", "csv"],
            ["report", "--flow", "glp1", "--format", "markdown"],
            ["report", "--flow", "glp1", "--format", "html"],
            ["report", "--flow", "glp1", "--by", "app_version", "--where", "platform=ios"],
            ["report", "--flow", "glp1", "--by", "day", "--as-of", "2026-10-05"],
            ["users", "--flow", "glp1", "--state", "abandoned"],
            ["users", "--flow", "glp1", "--format", "csv"],
            ["explain", "--flow", "glp1", "--step", "height"],
            ["paths", "--flow", "glp1", "--from", "height", "--to", "activityLevel"],
            ["paths", "--flow", "glp1", "--idle", "1h", "--format", "json"],
            ["paths", "--flow", "trendy", "--cohort", "new_accounts", "--format", "html"],
            ["paths", "--flow", "glp1", "--idle", "2h", "--as-of", "2026-10-05", "--format", "json"],
            ["paths", "--flow", "glp1", "--idle", "5m", "--format", "csv"],
            ["report", "--flow", "glp1", "--by", "platform", "--by", "lane", "--format", "json"],
            ["flows", "drift", "--flow", "glp1"],
            ["quarantine"],
            ["export"],
            ["export", "--flow", "trendy", "--since", "2026-10-03"],
            ["replay", "--user", "u-7"],
        ]
        for flow in Self.flows.dropFirst() {
            commands.append(["report", "--flow", flow])
            commands.append(["report", "--flow", flow, "--format", "json"])
        }
        // A few users of each flow, replayed.
        let export = try runFunnel(["export", "--store", stores[0]]).stdout.split(separator: "\n")
        var users: [String: String] = [:]
        for line in export.enumerated().filter({ $0.offset % 97 == 0 }).map(\.element) {
            guard let object = try? jsonObject(String(line)), let user = object["user_id"] as? String, let flow = object["flow"] as? String else { continue }
            if users.count < 12 && users.values.filter({ $0 == flow }).count < 2 { users[user] = flow }
        }
        XCTAssertGreaterThanOrEqual(users.count, 8)
        for (user, flow) in users.sorted(by: { $0.key < $1.key }) {
            commands.append(["replay", "--user", user, "--flow", flow])
            commands.append(["replay", "--user", user, "--format", "json"])
        }
        for args in commands {
            let expected = try run(args, store: stores[0], expect: args.first == "flows" ? 1 : 0)
            XCTAssertGreaterThan(expected.count, 40, "\(args)")
            for store in stores.dropFirst() {
                let got = try run(args, store: store, expect: args.first == "flows" ? 1 : 0)
                XCTAssertTrue(got == expected, "\(args) differs on \(store):\n\(firstDifference(got, expected))")
            }
        }
    }

    /// Vendor exports (`ingest --source`): on one server and two shards, the same summary,
    /// reports, users, replays (the vendor's line shown), quarantine and export (the vendor's
    /// lines) as on SQLite; the same lines again are duplicates alike.
    func testVendorExportsGiveTheSameOutputOnSQLiteAndClickHouse() throws {
        let servers = try servers()
        for vendor in ["posthog", "segment", "amplitude"] {
            let stores = [tempDir().appendingPathComponent("\(vendor).sqlite").path,
                          servers.single(ClickHouseServers.database("src_\(vendor)")),
                          servers.cluster(ClickHouseServers.database("src_\(vendor)"))]
            let input = sampleData.appendingPathComponent("sources/\(vendor)").path
            let ingested = try stores.map { try run(["ingest", "--format", "json", "--source", vendor, input], store: $0) }
            XCTAssertEqual(try jsonObject(String(ingested[0].prefix { $0 != "\n" }))["accepted"] as? Int, 2_727)
            var commands: [[String]] = [["export"], ["quarantine"], ["users", "--flow", "shieldai", "--format", "csv"],
                                        ["explain", "--flow", "shieldai", "--step", "auth"]]
            for format in ["text", "json", "csv", "markdown", "html"] { commands.append(["report", "--flow", "shieldai", "--format", format]) }
            for user in ["u-000001", "u-000077", "u-000160"] { commands.append(["replay", "--user", user, "--format", "json"]) }
            for (i, store) in stores.enumerated() {
                XCTAssertEqual(ingested[i], ingested[0], "\(vendor) ingest on \(store)")
            }
            for args in commands {
                let expected = try run(args, store: stores[0])
                for store in stores.dropFirst() {
                    let got = try run(args, store: store)
                    XCTAssertTrue(got == expected, "\(vendor) \(args) differs on \(store):\n\(firstDifference(got, expected))")
                }
            }
            // The vendor's lines back, not a native line.
            XCTAssertTrue(try run(["export"], store: stores[1]).hasPrefix(vendor == "amplitude" ? "{\"$insert_id\"" : "{"))
        }
    }

    /// Amplitude's export as downloaded (a zip of the hourly files), on one server and two
    /// shards, gives what the files unzipped give on SQLite; the same zip again is skipped.
    func testAmplitudesZipGivesWhatItsFilesGiveOnSQLite() throws {
        let servers = try servers()
        let folder = sampleData.appendingPathComponent("sources/amplitude")
        let zip = tempDir().appendingPathComponent("export.zip").path
        try Data(try ZipFixture.archive(folder: folder, prefix: "123456")).write(to: URL(fileURLWithPath: zip))
        let reference = tempDir().appendingPathComponent("amplitude.sqlite").path
        _ = try run(["ingest", "--source", "amplitude", folder.path], store: reference)
        let stores = [servers.single(ClickHouseServers.database("zip_amplitude")), servers.cluster(ClickHouseServers.database("zip_amplitude"))]
        for store in stores {
            let ingested = try run(["ingest", "--format", "json", "--source", "amplitude", zip], store: store)
            let summary = try jsonObject(String(ingested.prefix { $0 != "\n" }))
            XCTAssertEqual(summary["files"] as? Int, 101, store)
            XCTAssertEqual(summary["accepted"] as? Int, 2_727, store)
            var commands: [[String]] = [["export"], ["quarantine"], ["users", "--flow", "shieldai", "--format", "csv"]]
            for format in ["text", "json"] { commands.append(["report", "--flow", "shieldai", "--format", format]) }
            for args in commands {
                let got = try run(args, store: store), expected = try run(args, store: reference)
                XCTAssertTrue(got == expected, "\(args) differs on \(store):\n\(firstDifference(got, expected))")
            }
            let again = try jsonObject(String(try run(["ingest", "--format", "json", "--source", "amplitude", zip], store: store).prefix { $0 != "\n" }))
            XCTAssertEqual(again["lines"] as? Int, 0, store)
            XCTAssertEqual((again["skipped"] as? [Any])?.count, 101, store)
        }
    }

    func testAKilledIngestRunAgainGivesTheUninterruptedStore() throws {
        let servers = try servers()
        let binary = try funnelBinary()
        let inputs = sampleData.appendingPathComponent("glp1").path
        let reference = tempDir().appendingPathComponent("r.sqlite").path
        _ = try run(["ingest", inputs], store: reference)
        let store = servers.cluster(ClickHouseServers.database("killed"))
        // Three days in and reported on first: their users' facts rows are written, and go
        // stale when the later days bring these users' newer events.
        let days = try FileManager.default.contentsOfDirectory(atPath: inputs).filter { $0.hasSuffix(".gz") }.sorted()
        XCTAssertEqual(days.count, 9)
        _ = try run(["ingest"] + days.prefix(3).map { inputs + "/" + $0 }, store: store)
        XCTAssertTrue(try run(["report", "--flow", "glp1"], store: store).contains("started"))
        // Killed at several moments: before, during and after its first commits.
        for delay in [0.3, 0.8, 1.5] {
            let p = Process()
            p.executableURL = binary
            p.arguments = ["ingest", "--store", store, inputs]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            Thread.sleep(forTimeInterval: delay)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
        _ = try run(["ingest", inputs], store: store)
        for args in [["export"], ["report", "--flow", "glp1", "--format", "json"], ["quarantine"]] {
            XCTAssertEqual(try run(args, store: store), try run(args, store: reference), "\(args)")
        }
    }

    /// A read while an ingest writes a ClickHouse store says so once, naming the ingest and the
    /// inputs the figures include, as on SQLite; an ingest killed goes silent and is not
    /// counted once its last heartbeat is older than the timeout.
    func testAReadDuringAnIngestSaysWhoWritesAndWhatItIncludes() throws {
        let servers = try servers()
        let address = servers.single(ClickHouseServers.database("busy"))
        let inputs = sampleData.appendingPathComponent("glp1").path
        _ = try run(["ingest", inputs], store: address)
        let quiet = try runFunnel(["report", "--store", address, "--flow", "glp1", "--format", "json"])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(quiet.stderr, "")
        let store = try ClickHouseStore(location: try ClickHouseLocation(address))
        // An ingest under way, as an ingest records itself.
        let writing = try store.startWriting("ingest")
        let last = sampleData.appendingPathComponent("glp1/events-2026-10-09.ndjson.gz").path
        for command in [["report", "--flow", "glp1", "--format", "json"], ["users", "--flow", "glp1"], ["quarantine"], ["export"]] {
            let r = try runFunnel(command + ["--store", address])
            XCTAssertEqual(r.status, 0, r.stderr)
            let note = unwrapped(r.stderr)
            XCTAssertTrue(note.hasPrefix("funnel \(command[0]): note: an ingest or rebuild is writing \(address) now (ingest, pid \(getpid()) on \(ProcessInfo.processInfo.hostName), since 20"),
                          r.stderr)
            XCTAssertTrue(note.contains(" s ago): the figures include the inputs finished so far (9 in the ledger, the last \(last) at 20"),
                          r.stderr)
            XCTAssertEqual(note.components(separatedBy: "note:").count, 2, r.stderr)
            if command[0] == "report" { XCTAssertEqual(r.stdout, quiet.stdout) }
        }
        writing.end()
        XCTAssertEqual(try runFunnel(["report", "--store", address, "--flow", "glp1"]).stderr, "")
        // A writer on another machine, heard from now: running. One whose last heartbeat is
        // past the timeout: killed, not running.
        try store.coordinator.execute("""
            INSERT INTO writers (run, command, host, pid, started, beat, ended)
            VALUES (7, 'ingest', 'elsewhere', 99, now() - 3600, now() - 3000, 0)
            """, doing: "inserting")
        XCTAssertEqual(try runFunnel(["report", "--store", address, "--flow", "glp1"]).stderr, "")
        try store.coordinator.execute("""
            INSERT INTO writers (run, command, host, pid, started, ended) VALUES (8, 'rebuild', 'elsewhere', 98, now() - 5, 0)
            """, doing: "inserting")
        XCTAssertTrue(unwrapped(try runFunnel(["report", "--store", address, "--flow", "glp1"]).stderr)
                        .hasPrefix("funnel report: note: an ingest or rebuild is writing \(address) now (rebuild, pid 98 on elsewhere, since 20"))

        // A real ingest, killed once it has said that it runs: its row never ends, but its
        // process is gone from this machine, so a read does not count it; nor, after the
        // timeout (asked of the store as 2 s here), would a read on another machine.
        let fresh = servers.single(ClickHouseServers.database("killed"))
        let days = try FileManager.default.contentsOfDirectory(atPath: inputs).filter { $0.hasSuffix(".gz") }.sorted()
        _ = try run(["ingest"] + days.prefix(3).map { inputs + "/" + $0 }, store: fresh)
        let killedStore = try ClickHouseStore(location: try ClickHouseLocation(fresh))
        let p = Process()
        p.executableURL = try funnelBinary()
        p.arguments = ["ingest", "--store", fresh, inputs]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        var writers: [ClickHouseStore.Writer] = []
        for _ in 0..<400 where writers.isEmpty {
            writers = try killedStore.runningWriters()
            if writers.isEmpty { Thread.sleep(forTimeInterval: 0.02) }
        }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        XCTAssertEqual(writers.map(\.pid), [Int(p.processIdentifier)])
        let unended = String(decoding: try killedStore.coordinator.read("""
            SELECT count(), max(ended) FROM writers WHERE pid = \(p.processIdentifier)
            """, doing: "reading"), as: UTF8.self)
        XCTAssertEqual(unended.split(separator: "\t").last, "0\n", unended)
        XCTAssertEqual(try killedStore.runningWriters(), [])
        let after = try runFunnel(["report", "--store", fresh, "--flow", "glp1"])
        XCTAssertEqual(after.status, 0, after.stderr)
        XCTAssertEqual(after.stderr, "")
        Thread.sleep(forTimeInterval: 3)
        let silent = String(decoding: try killedStore.coordinator.read("""
            SELECT count() FROM (SELECT run FROM writers GROUP BY run HAVING max(ended) = 0 AND max(beat) >= now() - 2)
            """, doing: "reading"), as: UTF8.self)
        XCTAssertEqual(silent, "0\n")
    }

    /// An ingest into a ClickHouse store that another ingest or rebuild writes waits for it to
    /// end, saying so, as on SQLite; with --no-wait it fails at once as busy (exit 75).
    func testAnIngestWaitsWhileAnotherWriterRuns() throws {
        let servers = try servers()
        let address = servers.single(ClickHouseServers.database("wait"))
        let inputs = sampleData.appendingPathComponent("glp1").path
        let days = try FileManager.default.contentsOfDirectory(atPath: inputs).filter { $0.hasSuffix(".gz") }.sorted()
            .map { inputs + "/" + $0 }
        _ = try run(["ingest", days[0]], store: address)
        let store = try ClickHouseStore(location: try ClickHouseLocation(address))
        let writing = try store.startWriting("rebuild")
        let refused = try runFunnel(["ingest", "--no-wait", "--store", address, days[1]])
        XCTAssertEqual(refused.status, 75, refused.stderr)
        XCTAssertTrue(unwrapped(refused.stderr).contains("another ingest or rebuild is writing it (rebuild, pid \(getpid()) on "),
                      refused.stderr)
        XCTAssertEqual(try store.inputs().count, 1)

        // Without --no-wait: it waits, says so once, and goes on when the writer has ended.
        let said = Scratch.directory("wait").appendingPathComponent("stderr")
        XCTAssertTrue(FileManager.default.createFile(atPath: said.path, contents: nil))
        let p = Process()
        p.executableURL = try funnelBinary()
        p.arguments = ["ingest", "--store", address, days[1]]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = try FileHandle(forWritingTo: said)
        try p.run()
        var text = ""
        for _ in 0..<600 where !text.contains("waiting for it to end") {
            Thread.sleep(forTimeInterval: 0.05)
            text = (try? String(contentsOf: said, encoding: .utf8)) ?? ""
        }
        XCTAssertTrue(unwrapped(text).hasPrefix("funnel ingest: another ingest or rebuild is writing \(address) now (rebuild, pid \(getpid()) on "),
                      text)
        XCTAssertTrue(p.isRunning)
        XCTAssertEqual(try store.inputs().count, 1)
        writing.end()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, (try? String(contentsOf: said, encoding: .utf8)) ?? "")
        XCTAssertEqual(try store.inputs().count, 2)
        XCTAssertEqual(unwrapped((try? String(contentsOf: said, encoding: .utf8)) ?? "").components(separatedBy: "waiting for it to end").count, 2)
    }

    func testThePasswordNeverShowsNotEvenInAnError() throws {
        let servers = try servers()
        // The servers' user `default` has no password: this one is refused.
        let address = servers.single("pw").replacingOccurrences(of: "clickhouse://", with: "clickhouse://default:hunter2@")
        let r = try runFunnel(["report", "--store", address, "--flow", "glp1"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("cannot open the store clickhouse://default:***@127.0.0.1:"), r.stderr)
        XCTAssertFalse((r.stdout + r.stderr).contains("hunter2"), r.stderr)
        let ingest = try runFunnel(["ingest", sampleData.appendingPathComponent("edge").path],
                                   environment: ProcessInfo.processInfo.environment.merging(["FUNNEL_STORE": address]) { $1 })
        XCTAssertEqual(ingest.status, 2)
        XCTAssertFalse((ingest.stdout + ingest.stderr).contains("hunter2"), ingest.stderr)
    }

    /// Where two outputs first differ, with a little context.
    func firstDifference(_ a: String, _ b: String) -> String {
        let x = a.split(separator: "\n", omittingEmptySubsequences: false)
        let y = b.split(separator: "\n", omittingEmptySubsequences: false)
        for i in 0..<max(x.count, y.count) where (i < x.count ? x[i] : "<end>") != (i < y.count ? y[i] : "<end>") {
            return "line \(i + 1):\n  got:      \(i < x.count ? String(x[i].prefix(300)) : "<end>")\n  expected: \(i < y.count ? String(y[i].prefix(300)) : "<end>")"
        }
        return "same lines"
    }
}
