import Foundation
import XCTest
import TestSupport

/// A newcomer's first hour (issue 29): no silent wrong answers, one error style with
/// documented exit codes, read-only commands that never create a store, 80 columns.
final class FirstHourTests: XCTestCase {
    /// A store holding the bundled GLP-1 logs, ingested once for the class.
    nonisolated(unsafe) static var glp1Store: String?

    func glp1() throws -> String {
        if let s = Self.glp1Store { return s }
        let store = Scratch.directory("first-hour-glp1").appendingPathComponent("glp1.sqlite").path
        let r = try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path])
        XCTAssertEqual(r.status, 0, r.stderr)
        Self.glp1Store = store
        return store
    }

    /// The environment without FUNNEL_STORE: the default store is ./funnel.sqlite.
    var plainEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.filter { $0.key != "FUNNEL_STORE" }
    }

    // MARK: durations

    func testIdleNeedsAUnit() throws {
        let store = try glp1()
        let bare = try runFunnel(["report", "--store", store, "--flow", "glp1", "--idle", "3"])
        XCTAssertEqual(bare.status, 2)
        XCTAssertEqual(bare.stdout, "")
        XCTAssertTrue(bare.stderr.hasPrefix("funnel report: --idle \"3\": a duration needs a unit; units: s, m, h, d, w"), bare.stderr)
        // Three ways to say three days give the same report; the default (24 h) differs.
        var abandoned: [String: Int] = [:]
        for idle in ["3d", "72h", "3 days", "3days", "24h"] {
            let r = try runFunnel(["report", "--store", store, "--flow", "glp1", "--idle", idle, "--format", "json"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let users = try XCTUnwrap(try jsonObject(r.stdout)["users"] as? [String: Int])
            abandoned[idle] = users["abandoned"]
            XCTAssertEqual(try jsonObject(r.stdout)["idle_seconds"] as? Double, idle == "24h" ? 86_400 : 259_200)
        }
        XCTAssertEqual(Set(["3d", "72h", "3 days", "3days"].map { abandoned[$0] }).count, 1, "\(abandoned)")
        let plain = try runFunnel(["report", "--store", store, "--flow", "glp1", "--format", "json"])
        XCTAssertEqual(try jsonObject(plain.stdout)["users"] as? [String: Int] == nil, false)
        XCTAssertEqual((try jsonObject(plain.stdout)["users"] as? [String: Int])?["abandoned"], abandoned["24h"])
        // Written as two words, the unit is not taken for a log file: the number fails first.
        let split = try runFunnel(["report", "--store", store, "--flow", "glp1", "--idle", "3", "days"])
        XCTAssertEqual(split.status, 2)
        XCTAssertTrue(split.stderr.hasPrefix("funnel report: --idle \"3\": a duration needs a unit"), split.stderr)
        // replay reads --idle the same way.
        let replay = try runFunnel(["replay", "--store", store, "--user", "u-000006", "--idle", "12"])
        XCTAssertEqual(replay.status, 2)
        XCTAssertTrue(replay.stderr.hasPrefix("funnel replay: --idle \"12\": a duration needs a unit"), replay.stderr)
    }

    // MARK: read-only commands

    func testReadOnlyCommandsNeverCreateAStore() throws {
        let empty = Scratch.directory("first-hour-empty")
        let commands: [[String]] = [["report"], ["report", "--flow", "glp1"], ["users", "--flow", "glp1"],
                                    ["replay", "--user", "u-000006"], ["quarantine"], ["rebuild"], ["export"]]
        for args in commands {
            let r = try runFunnel(args, environment: plainEnvironment, directory: empty)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr, "funnel \(args[0]): no store at funnel.sqlite (ingest logs first, or give --store)\n", "\(args)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: empty.path), [], "\(args) left a file behind")
        }
        let elsewhere = empty.appendingPathComponent("nowhere.sqlite").path
        let r = try runFunnel(["users", "--store", elsewhere])
        XCTAssertEqual(r.stderr, "funnel users: no store at \(elsewhere) (ingest logs first, or give --store)\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: empty.path), [])
    }

    func testIngestIntoAFolderThatDoesNotExist() throws {
        let r = try runFunnel(["ingest", "--store", "/nonexistent/dir/x.sqlite", sampleData.appendingPathComponent("glp1").path])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stderr, "funnel ingest: cannot create the store /nonexistent/dir/x.sqlite: the folder /nonexistent/dir does not exist\n")
    }

    // MARK: validation before ingest

    func testReportChecksEveryOptionBeforeIngesting() throws {
        let dir = Scratch.directory("first-hour-validate")
        let store = dir.appendingPathComponent("s.sqlite").path
        let logs = sampleData.appendingPathComponent("glp1").path
        let cases: [([String], String)] = [
            (["--flow", "pawpal"], "funnel report: unknown flow \"pawpal\"; known flows: baby-basics, glp1, screentime-rewards, shieldai, trendy (a team's own definitions: --flows DIR)\n"),
            (["--flow", "glp1", "--cohort", "nope"], "funnel report: flow glp1 has no cohort \"nope\"; cohorts: "),
            (["--cohort", "nope"], "funnel report: no flow has a cohort \"nope\"; cohorts: "),
            (["--flow", "glp1", "--where", "wieghtGoal=maintain"], "funnel report: --where \"wieghtGoal=maintain\": unknown key \"wieghtGoal\" in flow glp1; keys: "),
            (["--flow", "glp1", "--by", "colour"], "funnel report: --by \"colour\": use cohort, lane, app_version, platform, day, week or flag:NAME"),
            (["--flow", "glp1", "--by", "lane", "--by", "day", "--by", "week"], "funnel report: --by \"lane\", \"day\", \"week\": at most two breakdowns at once"),
            (["--idle", "3"], "funnel report: --idle \"3\": a duration needs a unit"),
            (["--since", "yesterday"], "funnel report: --since: \"yesterday\" is not a time"),
            (["--flow", "glp1", "--as-of", "soon"], "funnel report: --as-of: \"soon\" is not a time"),
        ]
        for (args, message) in cases {
            let r = try runFunnel(["report", "--store", store] + args + [logs])
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix(message), "\(args): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("ingested"), "\(args) ingested first: \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: store), "\(args) created the store")
        }
    }

    func testAFlowWithoutADefinitionPointsToFlowsDir() throws {
        let dir = Scratch.directory("first-hour-pawpal")
        let store = dir.appendingPathComponent("s.sqlite").path
        // A day of GLP-1 events relabelled as a flow funnel has no definition for.
        let source = try Data(contentsOf: sampleData.appendingPathComponent("glp1/events-2026-10-01.ndjson.gz"))
        let gz = dir.appendingPathComponent("day.ndjson.gz")
        try source.write(to: gz)
        let relabel = Process()
        relabel.executableURL = URL(fileURLWithPath: "/bin/sh")
        relabel.arguments = ["-c", "zcat day.ndjson.gz | sed 's/\"flow\":\"glp1\"/\"flow\":\"pawpal\"/' > pawpal.ndjson"]
        relabel.currentDirectoryURL = dir
        try relabel.run()
        relabel.waitUntilExit()
        let ingest = try runFunnel(["ingest", "--store", store, dir.appendingPathComponent("pawpal.ndjson").path])
        XCTAssertEqual(ingest.status, 0, ingest.stderr)
        let r = try runFunnel(["report", "--store", store])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stderr, "funnel report: the store holds events of flows with no definition: pawpal; give their definitions with --flows DIR (known flows: baby-basics, glp1, screentime-rewards, shieldai, trendy)\n")
    }

    // MARK: values that match nobody

    func testAFilterThatMatchesNobodySaysSo() throws {
        let store = try glp1()
        // A value the definition does not list is an error naming the ones it does.
        let typo = try runFunnel(["report", "--store", store, "--flow", "glp1", "--where", "weightGoal=maintian", "--format", "json"])
        XCTAssertEqual(typo.status, 2, typo.stderr)
        XCTAssertEqual(typo.stderr, "funnel report: --where \"weightGoal=maintian\": flow glp1 has no weightGoal value \"maintian\"; weightGoal is one of: gain, lose, maintain\n")
        let right = try runFunnel(["report", "--store", store, "--flow", "glp1", "--where", "weightGoal=maintain", "--format", "json"])
        XCTAssertEqual(right.stderr, "")
        XCTAssertGreaterThan((try jsonObject(right.stdout)["users"] as? [String: Int])?["started"] ?? 0, 0)
        // A listed value nobody gave: a warning with the values given.
        let users = try runFunnel(["users", "--store", store, "--flow", "glp1", "--where", "weeklyPaceKg=99", "--format", "csv"])
        XCTAssertEqual(users.status, 0, users.stderr)
        XCTAssertEqual(users.stdout.split(separator: "\n").count, 1, users.stdout)
        XCTAssertTrue(users.stderr.hasPrefix("funnel users: warning: --where weeklyPaceKg=99 matches none of the 393 users who started in flow glp1; weeklyPaceKg is one of: "), users.stderr)
        let cohort = try runFunnel(["report", "--store", store, "--flow", "glp1", "--cohort", "glp1", "--where", "journeyStatus=about_to_start", "--format", "json"])
        XCTAssertEqual(cohort.status, 0, cohort.stderr)
        XCTAssertEqual((try jsonObject(cohort.stdout)["users"] as? [String: Int])?["started"], 0)
        // Each alone matches someone: the warning says nothing false, so nothing at all.
        XCTAssertEqual(cohort.stderr, "")
        // A window with nobody in it is not a filter's fault: the warning says so.
        let late = try runFunnel(["report", "--store", store, "--flow", "glp1", "--cohort", "glp1", "--since", "2027-01-01"])
        XCTAssertEqual(late.status, 0, late.stderr)
        XCTAssertTrue(late.stderr.hasPrefix("funnel report: warning: no user started in flow glp1 in the window before as-of "), late.stderr)
        XCTAssertTrue(late.stderr.hasSuffix("; cohort and filters were not tried\n"), late.stderr)
    }

    // MARK: one error style, exit codes

    func testUsageErrorsExit64InTheCommandsStyle() throws {
        let cases: [([String], String)] = [
            (["report", "--nope"], "funnel report: Unknown option '--nope'"),
            (["replay"], "funnel replay: Missing expected argument '--user <user>'"),
            (["ingest"], "funnel ingest: Missing expected argument '<inputs> ...'"),
            (["report", "--format", "pdf"], "funnel report: The value 'pdf' is invalid for '--format <format>'"),
            (["flows", "path", "glp1", "--flagg", "x=on"], "funnel flows path: Unknown option '--flagg'"),
        ]
        for (args, prefix) in cases {
            let r = try runFunnel(args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix(prefix), "\(args): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("Error:"), "\(args): \(r.stderr)")
        }
        let help = try runFunnel(["report", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.hasPrefix("OVERVIEW: Report a flow's funnel"), help.stdout)
    }

    func testFlowFailuresFollowTheSameStyle() throws {
        let dir = Scratch.directory("first-hour-flows")
        let missing = try runFunnel(["flows", "check", "missing.json"], directory: dir)
        XCTAssertEqual(missing.status, 2)
        XCTAssertEqual(missing.stdout, "")
        XCTAssertEqual(missing.stderr, "funnel flows check: cannot read missing.json: no such file\n")
        let flows = dir.appendingPathComponent("team")
        try FileManager.default.createDirectory(at: flows, withIntermediateDirectories: true)
        try Data("{\"id\": \"pawpal\",".utf8).write(to: flows.appendingPathComponent("pawpal.json"))
        for args in [["flows", "--flows", flows.path], ["flows", "show", "glp1", "--flows", flows.path],
                     ["report", "--flows", flows.path, "--store", dir.appendingPathComponent("none.sqlite").path]] {
            let r = try runFunnel(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            let name = args[1] == "show" ? "flows show" : args[0]
            XCTAssertTrue(r.stderr.hasPrefix("funnel \(name): cannot load flow \(flows.path)/pawpal.json: not JSON: "), "\(args): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("$:") || r.stderr.contains("Error:"), r.stderr)
        }
        let bad = try runFunnel(["flows", "check", flows.appendingPathComponent("pawpal.json").path])
        XCTAssertEqual(bad.status, 1)
        XCTAssertFalse(bad.stdout.contains("$:"), bad.stdout)
    }
}
