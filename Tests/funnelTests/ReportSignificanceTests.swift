import XCTest
import Foundation

/// `report --by`: each segment against the rest of the selection, on the bundled GLP-1 logs.
/// Expected p-values are scipy's for the same counts.
final class ReportSignificanceTests: XCTestCase {
    static let store: String = {
        let path = tempDir().appendingPathComponent("s.sqlite").path
        _ = try? runFunnel(["ingest", "--store", path, sampleData.appendingPathComponent("glp1").path])
        return path
    }()

    func report(_ args: [String]) throws -> [String: Any] {
        let r = try runFunnel(["report", "--store", ReportSignificanceTests.store, "--flow", "glp1", "--format", "json"] + args)
        XCTAssertEqual(r.status, 0, r.stderr)
        return try jsonObject(r.stdout)
    }

    func testCohortsAgainstTheRest() throws {
        let o = try report(["--by", "cohort"])
        let groups = try XCTUnwrap(o["groups"] as? [[String: Any]])
        XCTAssertEqual(groups.map { $0["value"] as? String }, ["glp1", "explorers", "(none)"])
        let p = groups.map { $0["p_value"] as? Double ?? -1 }
        let adjusted = groups.map { $0["p_value_adjusted"] as? Double ?? -1 }
        for (a, e) in zip(p, [0.35829140270359894, 1.4225454788780352e-05, 7.57389743868407e-19]) { XCTAssertEqual(a / e, 1, accuracy: 1e-9) }
        for (a, e) in zip(adjusted, [0.358291403, 2.13381822e-05, 2.27216923e-18]) { XCTAssertEqual(a / e, 1, accuracy: 1e-8) }
        // explorers: 139 of 182 against 117 + 0 of 173 + 38.
        XCTAssertEqual(groups[1]["difference_from_rest"] as? Double ?? 0, 139.0 / 182 - 117.0 / 211, accuracy: 1e-12)
        // Per step, conversion from eligible: journeyAffirmation, 173 of 173 against 182 of 187.
        let steps = try XCTUnwrap((groups[0]["report"] as? [String: Any])?["steps"] as? [[String: Any]])
        let affirmation = try XCTUnwrap(steps.first { $0["step"] as? String == "journeyAffirmation" })
        XCTAssertEqual(affirmation["p_value"] as? Double ?? 0, 0.030324195497767947, accuracy: 1e-12)
        // The whole selection's rows carry no comparison.
        let top = try XCTUnwrap(o["steps"] as? [[String: Any]])
        XCTAssertTrue(top.allSatisfy { $0["p_value"] == nil })
        XCTAssertNil(try report([])["groups"])
    }

    func testSmallSegmentsAreNotTested() throws {
        let o = try report(["--by", "app_version", "--since", "2026-10-06"])
        let groups = try XCTUnwrap(o["groups"] as? [[String: Any]])
        let small = try XCTUnwrap(groups.first { $0["value"] as? String == "3.1.0" })
        XCTAssertEqual((small["report"] as? [String: Any]).flatMap { $0["users"] as? [String: Any] }?["started"] as? Int, 13)
        XCTAssertTrue(small["p_value"] is NSNull)
        XCTAssertTrue(small["p_value_adjusted"] is NSNull)
        let text = try runFunnel(["report", "--store", ReportSignificanceTests.store, "--flow", "glp1", "--by", "app_version",
                                  "--since", "2026-10-06"]).stdout
        XCTAssertTrue(text.contains("against the rest of the selection: completion +12.4 pts (too few users)"), text)
        XCTAssertTrue(text.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    func testTextAndMarkdownMarkSignificantDifferences() throws {
        let text = try runFunnel(["report", "--store", ReportSignificanceTests.store, "--flow", "glp1", "--by", "cohort"]).stdout
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.allSatisfy { $0.count <= 80 }, text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("explorers") && $0.hasSuffix("+20.9  <0.001*") }, text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("glp1 ") && $0.hasSuffix("+4.4    0.358") }, text)
        XCTAssertTrue(text.contains("against the rest of the selection: completion +20.9 pts (p < 0.001, significant)"), text)
        let markdown = try runFunnel(["report", "--store", ReportSignificanceTests.store, "--flow", "glp1", "--by", "cohort",
                                      "--format", "markdown"]).stdout
        XCTAssertTrue(markdown.contains("Steps that differ from the rest (of eligible, adjusted p < 0.05): journeyStatus"), markdown)
    }
}
