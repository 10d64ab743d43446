import XCTest
import Foundation
import TestSupport

/// Nothing silently empty, one meaning per exit code: every case that used to exit 0 without a
/// word, and every bad value under the one rule `funnel help` states (2 for a value the command
/// cannot use, 64 for a command line that does not parse).
final class NothingSilentTests: XCTestCase {
    static let glp1Logs = sampleData.appendingPathComponent("glp1").path

    func glp1Store() throws -> String {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        let r = try runFunnel(["ingest", "--store", store, Self.glp1Logs])
        XCTAssertEqual(r.status, 0, r.stderr)
        return store
    }

    // MARK: inputs

    func testAFolderWithNoLogsWarnsAndOtherFilesAreNamed() throws {
        let dir = tempDir()
        let empty = dir.appendingPathComponent("collector")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: empty.appendingPathComponent("events.log.gz"))
        try Data("x".utf8).write(to: empty.appendingPathComponent(".hidden.ndjson"))
        let store = dir.appendingPathComponent("s.sqlite").path
        let r = try runFunnel(["ingest", "--store", store, "--format", "json", empty.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try jsonObject(r.stdout)["files"] as? Int, 0)
        XCTAssertEqual(unwrapped(r.stderr), """
            funnel ingest: warning: \(empty.path) holds no logs (.ndjson, .jsonl, .ndjson.gz, .jsonl.gz, .ndjson.zst, .jsonl.zst); nothing read from it
            funnel ingest: note: left out 1 file not named as logs (.ndjson, .jsonl, .ndjson.gz, .jsonl.gz, .ndjson.zst, .jsonl.zst): \(empty.path)/events.log.gz; give a file by name to read it

            """, r.stderr)
        // Beside real logs, the stray file is still named, and the logs are read.
        try FileManager.default.copyItem(atPath: sampleData.appendingPathComponent("glp1/events-2026-10-01.ndjson.gz").path,
                                         toPath: empty.appendingPathComponent("events-2026-10-01.ndjson.gz").path)
        let mixed = try runFunnel(["ingest", "--store", store, "--format", "json", empty.path])
        XCTAssertEqual(mixed.status, 0, mixed.stderr)
        XCTAssertEqual(try jsonObject(mixed.stdout)["files"] as? Int, 1)
        XCTAssertFalse(mixed.stderr.contains("holds no logs"), mixed.stderr)
        XCTAssertTrue(unwrapped(mixed.stderr).contains("left out 1 file not named as logs"), mixed.stderr)
        XCTAssertTrue(mixed.stderr.contains("/events.log.gz"), mixed.stderr)
        // report given the folder says the same.
        let report = try runFunnel(["report", "--store", store, "--flow", "glp1", empty.path])
        XCTAssertTrue(unwrapped(report.stderr).hasPrefix("funnel report: note: left out 1 file not named as logs"), report.stderr)
    }

    // MARK: windows and as-of

    func testSinceAfterUntilIsAnError() throws {
        let store = try glp1Store()
        for command in [["report", "--flow", "glp1"], ["users", "--flow", "glp1"], ["export"],
                        ["explain", "--flow", "glp1", "--step", "signIn"]] {
            let r = try runFunnel(command + ["--store", store, "--since", "2026-10-05", "--until", "2026-10-03"])
            XCTAssertEqual(r.status, 2, "\(command): \(r.stderr)")
            XCTAssertEqual(r.stdout, "")
            XCTAssertEqual(r.stderr, "funnel \(command[0]): --until (2026-10-03T00:00:00.000Z) is not after --since (2026-10-05T00:00:00.000Z): the window holds no time\n",
                           "\(command)")
        }
    }

    func testAWindowOrAsOfOutsideTheDataWarns() throws {
        let store = try glp1Store()
        let late = try runFunnel(["report", "--store", store, "--flow", "glp1", "--since", "2027-01-01", "--format", "json"])
        XCTAssertEqual(late.status, 0, late.stderr)
        XCTAssertEqual((try jsonObject(late.stdout)["users"] as? [String: Int])?["started"], 0)
        XCTAssertTrue(late.stderr.hasPrefix("funnel report: warning: no user started in flow glp1 in the window before as-of 2026-10-"),
                      late.stderr)
        XCTAssertTrue(late.stderr.contains("; the store's latest event is at 2026-10-"), late.stderr)
        let early = try runFunnel(["users", "--store", store, "--flow", "glp1", "--as-of", "2026-01-01"])
        XCTAssertEqual(early.status, 0, early.stderr)
        XCTAssertEqual(early.stderr.split(separator: "\n").first,
                       "funnel users: warning: no user started in flow glp1 before as-of 2026-01-01T00:00:00.000Z; the store's latest event is at 2026-10-08T11:31:42.721Z"[...],
                       early.stderr)
        let future = try runFunnel(["report", "--store", store, "--flow", "glp1", "--as-of", "2027-01-01", "--format", "json"])
        XCTAssertEqual(future.status, 0, future.stderr)
        XCTAssertTrue(future.stderr.hasPrefix("funnel report: warning: --as-of 2027-01-01 is after the latest event in the store (2026-10-"),
                      future.stderr)
        XCTAssertTrue(future.stderr.contains("): users idle since count as abandoned\n"), future.stderr)
        let users = try XCTUnwrap(try jsonObject(future.stdout)["users"] as? [String: Int])
        XCTAssertEqual(users["in_progress"], 0, "a year on, everybody not done is abandoned")
        // Inside the data: no word.
        let inside = try runFunnel(["report", "--store", store, "--flow", "glp1", "--since", "2026-10-02", "--as-of", "2026-10-05"])
        XCTAssertEqual(inside.status, 0)
        XCTAssertEqual(inside.stderr, "")
    }

    func testAKnownFlowWithNoEventsWarnsAndDriftHasNothingToCompare() throws {
        let store = try glp1Store()
        let report = try runFunnel(["report", "--store", store, "--flow", "baby-basics", "--format", "json"])
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertEqual(report.stderr, "funnel report: warning: the store holds no events of flow baby-basics; it holds events of: glp1\n")
        let drift = try runFunnel(["flows", "drift", "--store", store, "--flow", "baby-basics"])
        XCTAssertEqual(drift.status, 2)
        XCTAssertEqual(drift.stdout, "")
        XCTAssertEqual(drift.stderr, "funnel flows drift: nothing to compare: the store holds no events of flow baby-basics; it holds events of: glp1\n")
        XCTAssertFalse(drift.stderr.contains("agrees"))
        let agreed = try runFunnel(["flows", "drift", "--store", store, "--flow", "glp1", "--as-of", "2026-01-01"])
        XCTAssertEqual(agreed.status, 2, agreed.stdout)
        XCTAssertTrue(agreed.stderr.hasPrefix("funnel flows drift: nothing to compare: no user started in flow glp1 before as-of"), agreed.stderr)
    }

    // MARK: bad values, one rule

    func testEveryBadValueExits2AndUsageErrors64() throws {
        let store = try glp1Store()
        let out = tempDir().appendingPathComponent("logs").path
        let bad: [([String], String)] = [
            (["report", "--store", store, "--flow", "glp1", "--idle", "12"], "funnel report: --idle \"12\": a duration needs a unit"),
            (["replay", "--store", store, "--user", "u-000006", "--idle", "12"], "funnel replay: --idle \"12\": a duration needs a unit"),
            (["sample", "--flow", "glp1", "--users", "5", "--days", "0", "--out", out], "funnel sample: invalid simulation option: --days must be at least 1\n"),
            (["sample", "--flow", "glp1", "--users", "0", "--out", out], "funnel sample: --users must be at least 1\n"),
            (["sample", "--flow", "glp1", "--users", "5", "--start", "Oct 1", "--out", out], "funnel sample: invalid simulation option: --start Oct 1 is not a date YYYY-MM-DD\n"),
            (["report", "--store", store, "--flow", "glp1", "--where", "weightGoal=maintian"],
             "funnel report: --where \"weightGoal=maintian\": flow glp1 has no weightGoal value \"maintian\"; weightGoal is one of: gain, lose, maintain\n"),
            (["users", "--store", store, "--flow", "glp1", "--where", "weightGoal in [lose, maintian]"],
             "funnel users: --where \"weightGoal in [lose, maintian]\": flow glp1 has no weightGoal value \"maintian\"; weightGoal is one of: gain, lose, maintain\n"),
            (["flows", "path", "glp1", "--set", "jorneyStatus=already_on_glp1"], "funnel flows path: --set jorneyStatus: flow glp1 collects no value jorneyStatus; known: "),
            (["flows", "path", "glp1", "--set", "weightGoal=maintian"],
             "funnel flows path: --set weightGoal=maintian: flow glp1 has no weightGoal value \"maintian\"; weightGoal is one of: gain, lose, maintain\n"),
            (["flows", "path", "glp1", "--flag", "x"], "funnel flows path: --flag x: expected NAME=on or NAME=off\n"),
            (["replay", "--store", store, "--user", "u-000006", "--flow", "nosuchflow"], "funnel replay: unknown flow \"nosuchflow\"; known flows: baby-basics, glp1, "),
        ]
        for (args, prefix) in bad {
            let r = try runFunnel(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stdout, "", "\(args)")
            XCTAssertTrue(r.stderr.hasPrefix(prefix), "\(args): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("USAGE") || r.stderr.contains("Usage:"), "no usage for a bad value: \(r.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "sample wrote nothing")
        // The right spelling passes.
        XCTAssertEqual(try runFunnel(["report", "--store", store, "--flow", "glp1", "--where", "weightGoal=maintain"]).status, 0)
        XCTAssertEqual(try runFunnel(["flows", "path", "glp1", "--set", "weightGoal=maintain"]).status, 0)
        // A command line that does not parse: 64, with the subcommand's own usage.
        let usage: [([String], String)] = [
            (["flows", "path", "glp1", "--sett", "x=y"], "funnel flows path: Unknown option '--sett'"),
            (["sample", "--flow", "glp1", "--users", "many", "--out", out], "funnel sample: The value 'many' is invalid for '--users <users>'"),
        ]
        for (args, prefix) in usage {
            let r = try runFunnel(args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix(prefix), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("Usage: funnel \(args[0] == "flows" ? "flows path" : args[0])"), r.stderr)
        }
        let help = try runFunnel(["help"])
        let words = help.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        XCTAssertTrue(words.contains("2 a failure: a value the command cannot use (a number out of range, a duration without a unit,"), help.stdout)
        XCTAssertTrue(words.contains("64 a usage error: the command line does not parse"), help.stdout)
    }

    // MARK: replay

    func testReplayBeforeTheUsersStart() throws {
        let store = try glp1Store()
        let r = try runFunnel(["replay", "--store", store, "--user", "u-000006", "--at", "2026-09-01"])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stdout, "")
        XCTAssertTrue(r.stderr.hasPrefix("funnel replay: user u-000006 had not started yet at 2026-09-01T00:00:00.000Z: the first event is at 2026-10-0"),
                      r.stderr)
        let known = try runFunnel(["replay", "--store", store, "--user", "u-000006", "--flow", "baby-basics"])
        XCTAssertEqual(known.status, 2)
        XCTAssertTrue(known.stderr.hasPrefix("funnel replay: no events for user \"u-000006\" in flow baby-basics"), known.stderr)
    }

    // MARK: sample, version

    func testSampleSaysWhatFailedInWords() throws {
        let dir = tempDir()
        let file = dir.appendingPathComponent("taken")
        try Data("x".utf8).write(to: file)
        let r = try runFunnel(["sample", "--flow", "glp1", "--users", "3", "--out", file.path])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stderr, "funnel sample: --out \(file.path) is a file, not a folder: nothing was written\n")
        let under = try runFunnel(["sample", "--flow", "glp1", "--users", "3", "--out", file.appendingPathComponent("logs").path])
        XCTAssertEqual(under.status, 2)
        XCTAssertEqual(under.stderr, "funnel sample: cannot create the folder \(file.path)/logs: Not a directory\n")
        XCTAssertFalse(under.stderr.contains("NSCocoaErrorDomain"))
    }

    func testVersion() throws {
        let r = try runFunnel(["--version"])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.stdout, "0.1.0\n")
    }
}
