import Foundation
import XCTest
import TestSupport

/// Runs the built `funnel` binary (see BinarySupport.swift).
final class FlowsCommandTests: XCTestCase {
    var tmp = ""

    override func setUpWithError() throws {
        tmp = Scratch.directory("flowscmd").path
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: tmp) }

    /// Runs the binary from a scratch directory: the built-in flows work from anywhere.
    func funnel(_ args: [String]) throws -> RunResult {
        try runFunnel(args, directory: URL(fileURLWithPath: tmp))
    }

    func testListText() throws {
        let r = try funnel(["flows"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 6)
        XCTAssertTrue(lines[0].hasPrefix("ID "))
        XCTAssertTrue(lines.contains { $0.hasPrefix("glp1 ") && $0.contains("Onboarding Tonic") && $0.hasSuffix("built-in") })
        XCTAssertTrue(lines.allSatisfy { $0.count <= 80 })
    }

    func testListJSON() throws {
        let r = try funnel(["flows", "--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let flows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(flows.compactMap { $0["id"] as? String }, ["baby-basics", "glp1", "screentime-rewards", "shieldai", "trendy"])
        let glp1 = try XCTUnwrap(flows.first { $0["id"] as? String == "glp1" })
        XCTAssertEqual(glp1["title"] as? String, "Onboarding Tonic (GLP-1)")
        let steps = try XCTUnwrap(glp1["steps"] as? [[String: Any]])
        XCTAssertEqual(steps.count, 25)
        let goal = try XCTUnwrap(steps.first { $0["id"] as? String == "goalWeight" })
        XCTAssertEqual(goal["kind"] as? String, "screen")
        XCTAssertEqual(goal["lanes"] as? [String], ["explorers", "glp1"])
        XCTAssertEqual(goal["when"] as? String, "weightGoal != maintain")
        let style = try XCTUnwrap(steps.first { $0["id"] as? String == "trackingStyle" })
        XCTAssertEqual(style["flag"] as? String, "trackingStyleQuestion")
        XCTAssertEqual((glp1["cohorts"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, ["glp1", "explorers"])
        XCTAssertEqual((glp1["lanes"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, ["explorers", "glp1"])
    }

    func testShow() throws {
        let r = try funnel(["flows", "show", "glp1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("if weightGoal != maintain"))
        XCTAssertTrue(r.stdout.contains("flag completionScreenForExplorers"))
        XCTAssertTrue(r.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 })
        let unknown = try funnel(["flows", "show", "nope"])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.stderr.contains("unknown flow nope; known: baby-basics, glp1, screentime-rewards, shieldai, trendy"), unknown.stderr)
    }

    func testPath() throws {
        let r = try funnel(["flows", "path", "glp1", "--set", "journeyStatus=already_on_glp1", "--set", "weightGoal=maintain",
                            "--set", "injectionFrequency=daily", "--flag", "trackingStyleQuestion=off"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("glp1: lane glp1 (journeyStatus = already_on_glp1)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("- goalWeight"))
        XCTAssertTrue(r.stdout.contains("skipped: weightGoal = maintain"))
        XCTAssertTrue(r.stdout.contains("skipped: injectionFrequency = daily"))
        XCTAssertTrue(r.stdout.contains("skipped: flag trackingStyleQuestion off"))
        XCTAssertTrue(r.stdout.contains("+ completion"))
        let bad = try funnel(["flows", "path", "glp1", "--set", "wieghtGoal=lose"])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("collects no value wieghtGoal"), bad.stderr)
    }

    func testCheck() throws {
        let good = packageRoot.appendingPathComponent("schemas/flows/glp1.json").path
        let ok = try funnel(["flows", "check", good])
        XCTAssertEqual(ok.status, 0, ok.stdout + ok.stderr)
        XCTAssertEqual(ok.stdout, "ok\n")

        var text = try String(contentsOfFile: good, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"activityLevel\", \"healthKitBenefits\",", with: "\"activityLevel\", \"healthKitBenefit\",")
        text = text.replacingOccurrences(of: "\"when\": \"weightGoal != maintain\"}", with: "\"when\": \"weightGoal != maintian\"}")
        let bad = tmp + "/bad.json"
        try text.write(toFile: bad, atomically: true, encoding: .utf8)
        let r = try funnel(["flows", "check", bad])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stdout.contains("\(bad): $.lanes[1].steps[20]: unknown step \"healthKitBenefit\""), r.stdout)
        XCTAssertTrue(r.stdout.contains("$.steps[16].when: \"weightGoal != maintian\": weightGoal is never \"maintian\""), r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("errors\n"), r.stdout)
    }

    func testUserFlowsDirectory() throws {
        let dir = tmp + "/flows"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try """
        {"id": "trendy", "title": "Our Trendy", "lanes": [{"id": "main", "steps": ["a", "done"]}],
         "steps": [{"id": "a", "kind": "screen"}, {"id": "done", "kind": "terminal"}]}
        """.write(toFile: dir + "/trendy.json", atomically: true, encoding: .utf8)
        let r = try funnel(["flows", "--flows", dir])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("Our Trendy"))
        XCTAssertTrue(r.stderr.contains("replaces the built-in flow trendy"), r.stderr)
    }

    func testSample() throws {
        let out = tmp + "/out"
        let r = try funnel(["sample", "--flow", "trendy", "--users", "50", "--seed", "3", "--days", "2", "--out", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("trendy: 50 users"), r.stdout)
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        XCTAssertTrue(files.contains("events-2026-10-01.ndjson.gz"), "\(files)")
        let again = try funnel(["sample", "--flow", "trendy", "--users", "50", "--seed", "3", "--days", "2", "--out", tmp + "/again"])
        XCTAssertEqual(again.status, 0)
        for f in files {
            XCTAssertEqual(FileManager.default.contents(atPath: out + "/" + f), FileManager.default.contents(atPath: tmp + "/again/" + f), f)
        }
        let unknown = try funnel(["sample", "--flow", "nope", "--users", "5", "--out", out])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.stderr.contains("unknown flow nope; known:"), unknown.stderr)
    }
}
