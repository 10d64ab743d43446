import Foundation
import FunnelModel
import XCTest
@testable import Flows
import TestSupport

final class FlowCatalogTests: XCTestCase {
    var dir: String = ""

    override func setUpWithError() throws {
        dir = Scratch.directory("flowcatalog").path
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    static let tiny = """
    {"id": "tiny", "title": "Tiny", "lanes": [{"id": "main", "steps": ["a", "b"]}],
     "steps": [{"id": "a", "kind": "screen"}, {"id": "b", "kind": "terminal"}]}
    """

    func testBuiltInsOnly() throws {
        let c = try FlowCatalog(directory: nil)
        XCTAssertEqual(c.ids, ["baby-basics", "glp1", "screentime-rewards", "shieldai", "trendy"])
        XCTAssertEqual(c.notes, [])
        XCTAssertEqual(try c.flow("trendy").title, "Trendy")
    }

    func testUnknownFlowNamesTheKnownOnes() throws {
        let c = try FlowCatalog()
        XCTAssertThrowsError(try c.flow("nope")) { error in
            XCTAssertEqual("\(error)", "unknown flow nope; known: baby-basics, glp1, screentime-rewards, shieldai, trendy")
        }
    }

    func testUserFlowsAddAndReplace() throws {
        try Self.tiny.write(toFile: dir + "/tiny.json", atomically: true, encoding: .utf8)
        let replacement = Self.tiny.replacingOccurrences(of: "\"tiny\"", with: "\"trendy\"").replacingOccurrences(of: "Tiny", with: "Our Trendy")
        try replacement.write(toFile: dir + "/trendy.json", atomically: true, encoding: .utf8)
        try "not a flow".write(toFile: dir + "/README.md", atomically: true, encoding: .utf8)
        let c = try FlowCatalog(directory: dir)
        XCTAssertEqual(c.ids, ["baby-basics", "glp1", "screentime-rewards", "shieldai", "trendy", "tiny"])
        XCTAssertEqual(try c.flow("trendy").title, "Our Trendy")
        XCTAssertEqual(try c.entry("trendy").replacesBuiltIn, true)
        XCTAssertEqual(c.notes, ["\(dir)/trendy.json replaces the built-in flow trendy"])
        XCTAssertEqual(try c.entry("tiny").source, dir + "/tiny.json")
    }

    func testABrokenUserFlowIsRefusedWithItsIssues() throws {
        try Self.tiny.replacingOccurrences(of: "[\"a\", \"b\"]", with: "[\"a\", \"c\"]")
            .write(toFile: dir + "/tiny.json", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try FlowCatalog(directory: dir)) { error in
            guard case FlowCatalogError.invalidFlow(let e) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(e.file, dir + "/tiny.json")
            XCTAssertTrue(e.issues.contains { $0.kind == .unknownStep && $0.path == "$.lanes[0].steps[1]" }, "\(e.issues)")
        }
    }

    func testMissingDirectory() {
        XCTAssertThrowsError(try FlowCatalog(directory: dir + "/nope")) { error in
            XCTAssertTrue("\(error)".hasPrefix("cannot read flows directory \(dir)/nope"), "\(error)")
        }
    }
}
