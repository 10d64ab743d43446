import XCTest
import Foundation

final class ExportCommandTests: XCTestCase {
    /// `funnel export | funnel ingest --store fresh -` gives a store whose reports, user lists
    /// and replays are the original's.
    func testRoundTripGivesTheSameReports() throws {
        let dir = tempDir()
        let original = dir.appendingPathComponent("a.sqlite").path
        let inputs = ["glp1", "baby-basics", "edge", "bad"].map { sampleData.appendingPathComponent($0).path }
        XCTAssertEqual(try runFunnel(["ingest", "--store", original] + inputs).status, 2, "bad/ holds broken gzip files")
        let plain = dir.appendingPathComponent("all.ndjson")
        let export = try runFunnel(["export", "--store", original])
        XCTAssertEqual(export.status, 0, export.stderr)
        try Data(export.stdout.utf8).write(to: plain)
        let copy = dir.appendingPathComponent("b.sqlite").path
        let ingest = try runFunnel(["ingest", "--store", copy, "--format", "json", "-"], stdin: plain)
        XCTAssertEqual(ingest.status, 0, ingest.stderr)
        let summary = try jsonObject(ingest.stdout)
        let lines = export.stdout.split(separator: "\n").count
        XCTAssertEqual(summary["accepted"] as? Int, lines)
        XCTAssertEqual(summary["duplicates"] as? Int, 0)
        XCTAssertEqual(summary["quarantined"] as? Int, 0)
        for flow in ["glp1", "baby-basics"] {
            for args in [["report", "--format", "json"], ["report", "--by", "cohort", "--format", "markdown"],
                         ["users", "--format", "csv"], ["replay", "--user", "u-000006", "--format", "json"]] {
                let a = try runFunnel(args + ["--flow", flow, "--store", original])
                let b = try runFunnel(args + ["--flow", flow, "--store", copy])
                XCTAssertEqual(a.status, 0, a.stderr)
                XCTAssertFalse(a.stdout.isEmpty)
                XCTAssertEqual(maskIngestTimes(a.stdout), maskIngestTimes(b.stdout), "\(args) \(flow)")
            }
        }
        // The gzip file holds the same lines, and says how many it wrote.
        let gz = dir.appendingPathComponent("all.ndjson.gz").path
        let zipped = try runFunnel(["export", "--store", original, "--output", gz])
        XCTAssertEqual(zipped.stdout, "exported \(lines) events to \(gz)\n")
        let third = dir.appendingPathComponent("c.sqlite").path
        let again = try runFunnel(["ingest", "--store", third, "--format", "json", gz])
        XCTAssertEqual(try jsonObject(again.stdout)["accepted"] as? Int, lines)
    }

    func testSelectionAndErrors() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path]).status, 0)
        let user = try runFunnel(["export", "--store", store, "--user", "u-000006", "--since", "2026-10-01", "--until", "2026-12-01"])
        XCTAssertEqual(user.status, 0, user.stderr)
        let userLines = user.stdout.split(separator: "\n")
        XCTAssertGreaterThan(userLines.count, 5)
        XCTAssertTrue(userLines.allSatisfy { $0.contains(#""user_id":"u-000006""#) })

        let flow = try runFunnel(["export", "--store", store, "--flow", "glpx"])
        XCTAssertEqual(flow.status, 2)
        XCTAssertEqual(flow.stderr, "funnel export: no events in flow \"glpx\"; the store has: glp1\n")
        let who = try runFunnel(["export", "--store", store, "--user", "u-00006"])
        XCTAssertEqual(who.status, 2)
        XCTAssertTrue(who.stderr.hasPrefix("funnel export: no events for user \"u-00006\"; did you mean: u-000060"), who.stderr)
        let time = try runFunnel(["export", "--store", store, "--since", "yesterday"])
        XCTAssertEqual(time.status, 2)
        XCTAssertTrue(time.stderr.contains("--since: \"yesterday\" is not a time"), time.stderr)
        // Exporting never creates a store.
        let missing = tempDir().appendingPathComponent("none.sqlite").path
        let none = try runFunnel(["export", "--store", missing])
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.stderr.contains("no store at \(missing)"), none.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
    }

    /// Replays say when each copy was ingested: that differs between two stores.
    func maskIngestTimes(_ text: String) -> String {
        text.replacingOccurrences(of: #"\(ingested [0-9T:.-]+Z\)"#, with: "(ingested T)", options: .regularExpression)
    }
}
