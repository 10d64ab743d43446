import Foundation
import FunnelModel
import XCTest
@testable import Flows
import TestSupport

final class FlowCheckerTests: XCTestCase {
    /// A sound two-lane flow that each test breaks in one way.
    static let good = """
    {
      "id": "demo", "title": "Demo", "version": 2, "laneKey": "path",
      "lanes": [
        {"id": "a", "when": "path == a", "steps": ["start", "pick", "left", "goal", "end"]},
        {"id": "b", "when": "path == b", "steps": ["start", "pick", "right", {"id": "bonus", "flag": "extra"}, "end"]}
      ],
      "steps": [
        {"id": "start", "kind": "entry"},
        {"id": "pick", "kind": "screen", "collects": [{"key": "path", "values": ["a", "b"]}]},
        {"id": "left", "kind": "screen", "collects": [{"key": "goal", "values": ["up", "down"]}]},
        {"id": "goal", "kind": "screen", "when": "goal != down"},
        {"id": "right", "kind": "permission"},
        {"id": "bonus", "kind": "affirmation"},
        {"id": "end", "kind": "terminal"}
      ],
      "flags": [{"id": "extra", "default": false}],
      "cohorts": [{"id": "as", "where": "path == a"}, {"id": "new", "where": "app_version >= 3.2.0 and flag:extra"}]
    }
    """

    func issues(_ text: String) -> [FlowIssue] { FlowChecker.check(data: Data(text.utf8)) }

    /// The issues after replacing `old` by `new` in the good definition.
    func broken(_ old: String, _ new: String, file: StaticString = #filePath, line: UInt = #line) -> [FlowIssue] {
        XCTAssertTrue(Self.good.contains(old), "test setup: \(old) not found", file: file, line: line)
        return issues(Self.good.replacingOccurrences(of: old, with: new))
    }

    func assertIssue(_ found: [FlowIssue], _ kind: FlowIssueKind, _ path: String, _ text: String,
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(found.contains { $0.kind == kind && $0.path == path && $0.message.contains(text) },
                      "expected \(kind) at \(path) containing \"\(text)\" in \(found)", file: file, line: line)
    }

    func testGoodDefinitionIsClean() {
        XCTAssertEqual(issues(Self.good), [])
    }

    func testSyntaxErrorSaysWhere() {
        let found = issues("{\n  \"id\": \"x\",\n  \"title\" \"y\"\n}")
        XCTAssertEqual(found.count, 1)
        assertIssue(found, .syntax, "$", "line 3, column 11: expected ':' after key \"title\"")
    }

    func testShapeErrorsEachWithPath() {
        let found = broken("{\"id\": \"goal\", \"kind\": \"screen\", \"when\": \"goal != down\"}",
                           "{\"id\": \"goal\", \"kind\": \"screan\", \"wehn\": \"goal != down\"}")
        assertIssue(found, .shape, "$.steps[3].kind", "unknown kind \"screan\"")
        assertIssue(found, .shape, "$.steps[3].wehn", "unknown field \"wehn\"")
        let types = broken("\"version\": 2", "\"version\": \"2\"")
        assertIssue(types, .shape, "$.version", "expected an integer, found a string")
        let missing = broken("{\"id\": \"end\", \"kind\": \"terminal\"}", "{\"id\": \"end\"}")
        assertIssue(missing, .shape, "$.steps[6].kind", "missing field")
        let laneStep = broken("{\"id\": \"bonus\", \"flag\": \"extra\"}", "42")
        assertIssue(laneStep, .shape, "$.lanes[1].steps[3]", "expected a step id or an object")
    }

    func testUnknownStepReference() {
        let found = broken("\"right\", {\"id\"", "\"rigth\", {\"id\"")
        assertIssue(found, .unknownStep, "$.lanes[1].steps[2]", "unknown step \"rigth\"")
        // …and the step it meant is now on no lane.
        assertIssue(found, .unreachableStep, "$.steps[4]", "step \"right\" is on no lane")
    }

    func testUnreachableStep() {
        let found = broken("{\"id\": \"end\", \"kind\": \"terminal\"}",
                           "{\"id\": \"end\", \"kind\": \"terminal\"}, {\"id\": \"orphan\", \"kind\": \"screen\"}")
        XCTAssertEqual(found, [FlowIssue(.unreachableStep, "$.steps[7]", "step \"orphan\" is on no lane: no user can reach it")])
    }

    func testCycle() {
        let found = broken("\"goal\", \"end\"]", "\"goal\", \"pick\", \"end\"]")
        assertIssue(found, .cycle, "$.lanes[0].steps[4]", "already on lane \"a\" at $.lanes[0].steps[1]")
    }

    func testConditionThatDoesNotParse() {
        let found = broken("\"when\": \"goal != down\"", "\"when\": \"goal !! down\"")
        assertIssue(found, .badCondition, "$.steps[3].when", "cannot read condition")
        let cohort = broken("\"where\": \"path == a\"", "\"where\": \"path in [a\"")
        assertIssue(cohort, .badCondition, "$.cohorts[0].where", "cannot read condition")
    }

    func testConditionOnValuesNothingCollects() {
        let found = broken("\"when\": \"goal != down\"", "\"when\": \"gaol != down\"")
        assertIssue(found, .uncollectedValue, "$.steps[3].when", "reads \"gaol\", which no step collects")
        // Context keys and declared flags are fine (the good flow's cohort uses both).
        let later = broken("\"steps\": [\"start\", \"pick\", \"left\", \"goal\", \"end\"]",
                           "\"steps\": [\"start\", \"pick\", \"goal\", \"left\", \"end\"]")
        assertIssue(later, .uncollectedValue, "$.steps[3].when", "not collected before \"goal\"")
    }

    func testConditionOnAValueNeverSent() {
        let found = broken("\"when\": \"goal != down\"", "\"when\": \"goal != dowm\"")
        assertIssue(found, .unknownValue, "$.steps[3].when", "goal is never \"dowm\"")
    }

    func testUndeclaredFlags() {
        let found = broken("\"flags\": [{\"id\": \"extra\", \"default\": false}]", "\"flags\": []")
        assertIssue(found, .undeclaredFlag, "$.lanes[1].steps[3].flag", "flag \"extra\" is not declared")
        assertIssue(found, .undeclaredFlag, "$.cohorts[1].where", "flag \"extra\" is not declared")
    }

    func testLaneWithoutTerminal() {
        let found = broken("\"right\", {\"id\": \"bonus\", \"flag\": \"extra\"}, \"end\"]", "\"right\", {\"id\": \"bonus\", \"flag\": \"extra\"}]")
        assertIssue(found, .noTerminal, "$.lanes[1].steps", "lane \"b\" has no step of kind terminal")
    }

    func testDuplicateIDs() {
        let steps = broken("{\"id\": \"bonus\", \"kind\": \"affirmation\"}", "{\"id\": \"right\", \"kind\": \"affirmation\"}")
        assertIssue(steps, .duplicateID, "$.steps[5].id", "duplicate step id \"right\" (first at $.steps[4])")
        let lanes = broken("{\"id\": \"b\", \"when\"", "{\"id\": \"a\", \"when\"")
        assertIssue(lanes, .duplicateID, "$.lanes[1].id", "duplicate lane id \"a\"")
        let cohorts = broken("{\"id\": \"new\"", "{\"id\": \"as\"")
        assertIssue(cohorts, .duplicateID, "$.cohorts[1].id", "duplicate cohort id \"as\"")
    }

    func testLaneConditionMustReadTheLaneKey() {
        let found = broken("\"when\": \"path == b\"", "\"when\": \"flag:extra\"")
        assertIssue(found, .laneCondition, "$.lanes[1].when", "does not read the flow's laneKey \"path\"")
        let missing = broken("\"id\": \"b\", \"when\": \"path == b\",", "\"id\": \"b\",")
        assertIssue(missing, .laneCondition, "$.lanes[1]", "has no when")
    }

    func testEveryErrorIsReportedNotOnlyTheFirst() {
        var text = Self.good.replacingOccurrences(of: "\"right\", {\"id\"", with: "\"rigth\", {\"id\"")
        text = text.replacingOccurrences(of: "\"when\": \"goal != down\"", with: "\"when\": \"gaol != down\"")
        text = text.replacingOccurrences(of: "{\"id\": \"bonus\", \"kind\": \"affirmation\"}", with: "{\"id\": \"end\", \"kind\": \"affirmation\"}")
        let kinds = Set(issues(text).map(\.kind))
        XCTAssertTrue(kinds.isSuperset(of: [.unknownStep, .uncollectedValue, .duplicateID]), "\(kinds)")
    }

    func testCheckPathOfMissingFile() {
        XCTAssertEqual(FlowChecker.check(path: "/nonexistent/flow.json"),
                       [FlowIssue(.unreadable, "$", "cannot read /nonexistent/flow.json: no such file")])
        let directory = FlowChecker.checkFile(NSTemporaryDirectory())
        XCTAssertFalse(directory.isReadable)
        XCTAssertEqual(directory.issues.map(\.message), ["cannot read \(NSTemporaryDirectory()): it is a directory"])
    }

    /// A built-in definition's text, as in schemas/flows/NAME.json, with each edit made.
    func builtIn(_ name: String, _ edits: [(String, String)], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        var text = try XCTUnwrap(Flows.builtInSources.first { $0.name == name + ".json" }?.json, file: file, line: line)
        for (old, new) in edits {
            XCTAssertTrue(text.contains(old), "test setup: \(old) not in \(name).json", file: file, line: line)
            text = text.replacingOccurrences(of: old, with: new)
        }
        return text
    }

    func testShapeFaultsDoNotHideMeaningErrors() throws {
        // GLP-1 with a misspelt field (shape), a misspelt step on a lane and a value that is
        // never sent (meaning): all three in one pass.
        let text = try builtIn("glp1", [
            ("\"goalWeightKg\"}],\n     \"when\": \"weightGoal != maintain\"}",
             "\"goalWeightKg\"}],\n     \"when\": \"weightGoal != maintian\", \"wehn\": \"x\"}"),
            ("\"activityLevel\", \"healthKitBenefits\",", "\"activityLevel\", \"healthKitBenefit\","),
        ])
        let reading = FlowChecker.load(data: Data(text.utf8))
        XCTAssertNil(reading.definition)
        XCTAssertEqual(reading.issues.map { "\($0.kind.rawValue) \($0.path)" },
                       ["shape $.steps[16].wehn", "unknown-step $.lanes[1].steps[20]", "unknown-value $.steps[16].when"])
        assertIssue(reading.issues, .unknownStep, "$.lanes[1].steps[20]", "unknown step \"healthKitBenefit\"")
        assertIssue(reading.issues, .unknownValue, "$.steps[16].when", "weightGoal is never \"maintian\"")
    }

    func testShapeFaultsCauseNoFollowOnErrors() throws {
        // Trendy with its only terminal's kind missing, the key of auth's collected value
        // misnamed and a lane entry that is a number: each is one shape error. Read naively,
        // they would also make the lane endless, the cohorts read an uncollected value and
        // logFirstEvent unreachable; none of that is reported. The undeclared flag is.
        let text = try builtIn("trendy", [
            ("{\"id\": \"finish\", \"kind\": \"terminal\",", "{\"id\": \"finish\","),
            ("[{\"key\": \"authMethod\",", "[{\"name\": \"authMethod\","),
            ("\"createEventType\", \"logFirstEvent\", \"permissions\",", "\"createEventType\", 42, {\"id\": \"permissions\", \"flag\": \"askLater\"},"),
        ])
        XCTAssertEqual(issues(text).map { "\($0.kind.rawValue) \($0.path)" }, [
            "shape $.lanes[0].steps[3]", "shape $.steps[1].collects[0].key", "shape $.steps[1].collects[0].name",
            "shape $.steps[5].kind", "undeclared-flag $.lanes[0].steps[4].flag",
        ])
    }

    func testDirectoryIsCheckedAsFlowsReadsIt() throws {
        let dir = Scratch.directory("flowcheck-dir").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["glp1", "trendy"] {
            try builtIn(name, []).write(toFile: "\(dir)/\(name).json", atomically: true, encoding: .utf8)
        }
        try builtIn("trendy", [("\"title\": \"Trendy\"", "\"title\": \"Our Trendy\"")])
            .write(toFile: "\(dir)/our-trendy.json", atomically: true, encoding: .utf8)
        try "not a flow".write(toFile: "\(dir)/README.md", atomically: true, encoding: .utf8)
        let results = try FlowChecker.checkDirectory(dir)
        XCTAssertEqual(results.map(\.file), ["\(dir)/glp1.json", "\(dir)/our-trendy.json", "\(dir)/trendy.json"])
        XCTAssertEqual(results.map(\.flowID), ["glp1", "trendy", "trendy"])
        XCTAssertEqual(results[0].issues, [])
        XCTAssertEqual(results[1].issues, [])
        XCTAssertEqual(results[2].issues, [FlowIssue(.duplicateID, "$.id", "flow id \"trendy\" is already defined in \(dir)/our-trendy.json")])
        // --flows refuses the same directory for the same reason.
        XCTAssertThrowsError(try FlowCatalog(directory: dir)) { error in
            XCTAssertEqual(error as? FlowCatalogError, .duplicateFlow(id: "trendy", first: "\(dir)/our-trendy.json", second: "\(dir)/trendy.json"))
        }
        XCTAssertThrowsError(try FlowChecker.checkDirectory(dir + "/glp1.json")) { error in
            XCTAssertEqual("\(error)", "cannot read flows directory \(dir)/glp1.json: not a directory")
        }
    }
}
