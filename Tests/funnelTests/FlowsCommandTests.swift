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

        // A misspelt field, a misspelt step and a value never sent: every error in one pass,
        // each with the file and its JSON path, wrapped to 80 columns.
        var text = try String(contentsOfFile: good, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"activityLevel\", \"healthKitBenefits\",", with: "\"activityLevel\", \"healthKitBenefit\",")
        text = text.replacingOccurrences(of: "\"goalWeightKg\"}],\n     \"when\": \"weightGoal != maintain\"}",
                                        with: "\"goalWeightKg\"}],\n     \"when\": \"weightGoal != maintian\", \"wehn\": \"x\"}")
        try text.write(toFile: tmp + "/bad.json", atomically: true, encoding: .utf8)
        let r = try funnel(["flows", "check", "bad.json"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "")
        XCTAssertEqual(r.stdout, """
            bad.json: $.steps[16].wehn: unknown field "wehn"; known: collects, flag, id,
                kind, note, optional, title, when [shape]
            bad.json: $.lanes[1].steps[20]: unknown step "healthKitBenefit": no step in
                $.steps has this id [unknown-step]
            bad.json: $.steps[16].when: "weightGoal != maintian": weightGoal is never
                "maintian" (values: gain, lose, maintain) [unknown-value]
            3 errors

            """)
        let json = try jsonObject(try funnel(["flows", "check", "bad.json", "--format", "json"]).stdout)
        XCTAssertEqual(json["file"] as? String, "bad.json")
        XCTAssertEqual(json["ok"] as? Bool, false)
        XCTAssertEqual((json["issues"] as? [[String: Any]])?.compactMap { $0["path"] as? String },
                       ["$.steps[16].wehn", "$.lanes[1].steps[20]", "$.steps[16].when"])

        // A file that is not there is a failure that names it, with no JSON path.
        let missing = try funnel(["flows", "check", "missing.json"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertEqual(missing.stdout, "")
        XCTAssertEqual(missing.stderr, "funnel flows check: cannot read missing.json: no such file\n")
    }

    func testCheckDirectory() throws {
        // The built-in definitions, as --flows DIR would read them: all sound.
        let flows = try funnel(["flows", "check", packageRoot.appendingPathComponent("schemas/flows").path])
        XCTAssertEqual(flows.status, 0, flows.stdout + flows.stderr)
        let lines = flows.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 6, flows.stdout)
        XCTAssertTrue(lines.dropLast().allSatisfy { $0.hasSuffix(".json: ok") }, flows.stdout)
        XCTAssertEqual(lines.last, "no errors in 5 files")

        // A directory with a broken definition and two files of one flow id.
        let dir = tmp + "/team"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let trendy = try String(contentsOf: packageRoot.appendingPathComponent("schemas/flows/trendy.json"), encoding: .utf8)
        try trendy.write(toFile: dir + "/trendy.json", atomically: true, encoding: .utf8)
        try trendy.replacingOccurrences(of: "\"permissions\", \"finish\"]", with: "\"permissions\", \"finsh\"]")
            .write(toFile: dir + "/trendy-v2.json", atomically: true, encoding: .utf8)
        try "# not a flow".write(toFile: dir + "/README.md", atomically: true, encoding: .utf8)
        let r = try funnel(["flows", "check", "team"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stdout, """
            team/trendy-v2.json: $.lanes[0].steps[5]: unknown step "finsh": no step in
                $.steps has this id [unknown-step]
            team/trendy-v2.json: $.lanes[0].steps: lane "main" has no step of kind terminal:
                nothing ends it [no-terminal]
            team/trendy-v2.json: $.steps[5]: step "finish" is on no lane: no user can reach
                it [unreachable-step]
            team/trendy.json: $.id: flow id "trendy" is already defined in
                team/trendy-v2.json [duplicate-id]
            4 errors in 2 of 2 files

            """)
        let json = try jsonObject(try funnel(["flows", "check", "team", "--format", "json"]).stdout)
        XCTAssertEqual(json["ok"] as? Bool, false)
        let files = try XCTUnwrap(json["files"] as? [[String: Any]])
        XCTAssertEqual(files.compactMap { $0["file"] as? String }, ["team/trendy-v2.json", "team/trendy.json"])
        XCTAssertEqual(files.compactMap { ($0["issues"] as? [Any])?.count }, [3, 1])

        // An unreadable file among readable ones: the others are checked, the failure named.
        let mixed = try funnel(["flows", "check", "team/trendy.json", "nope.json"])
        XCTAssertEqual(mixed.status, 2)
        XCTAssertEqual(mixed.stdout, "team/trendy.json: ok\nno errors in 1 file\n")
        XCTAssertEqual(mixed.stderr, "funnel flows check: cannot read nope.json: no such file\n")

        try FileManager.default.createDirectory(atPath: tmp + "/empty", withIntermediateDirectories: true)
        let empty = try funnel(["flows", "check", "empty"])
        XCTAssertEqual(empty.status, 2)
        XCTAssertEqual(empty.stderr, "funnel flows check: empty holds no *.json flow definitions\n")
        let none = try funnel(["flows", "check"])
        XCTAssertEqual(none.status, 64)
        XCTAssertTrue(none.stderr.hasPrefix("funnel flows check: give a flow definition file (.json) or a directory of them\n"), none.stderr)
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
