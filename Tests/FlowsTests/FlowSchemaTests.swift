import Foundation
import FunnelModel
import XCTest
@testable import Flows

/// schemas/flow.schema.json and the checker's shape rules describe the same format.
final class FlowSchemaTests: XCTestCase {
    func schema() throws -> [String: JSONValue] {
        let url = BuiltInFlowsTests.root.appendingPathComponent("schemas/flow.schema.json")
        let tree = try JSONScanner.parseDocument(Array(try Data(contentsOf: url)))
        return try XCTUnwrap(tree.objectValue)
    }

    func keys(_ v: JSONValue?) -> [String] { v?.objectValue?.keys.sorted() ?? [] }

    func strings(_ v: JSONValue?) -> [String] {
        guard case .array(let a)? = v else { return [] }
        return a.compactMap(\.stringValue)
    }

    func testSchemaDeclaresDraft2020AndTheFieldsFlowDefinitionReads() throws {
        let s = try schema()
        XCTAssertEqual(s["$schema"], .string("https://json-schema.org/draft/2020-12/schema"))
        XCTAssertEqual(strings(s["required"]), ["id", "title", "lanes", "steps"])
        XCTAssertEqual(keys(s["properties"]), ["$schema", "cohorts", "description", "flags", "id", "laneKey", "lanes", "steps", "title", "version"])
        let defs = try XCTUnwrap(s["$defs"]?.objectValue)
        let step = defs["step"]?.objectValue
        XCTAssertEqual(keys(step?["properties"]), ["collects", "flag", "id", "kind", "note", "optional", "title", "when"])
        XCTAssertEqual(strings(step?["properties"]?.objectValue?["kind"]?.objectValue?["enum"]),
                       FlowDefinition.StepKind.allCases.map(\.rawValue))
        XCTAssertEqual(keys(defs["lane"]?.objectValue?["properties"]), ["id", "steps", "title", "when"])
        XCTAssertEqual(keys(defs["flag"]?.objectValue?["properties"]), ["default", "description", "id"])
        XCTAssertEqual(keys(defs["cohort"]?.objectValue?["properties"]), ["id", "title", "where"])
        XCTAssertNotNil(defs["laneStep"]?.objectValue?["oneOf"])
    }

    func testCheckerRejectsWhatTheSchemaRejects() {
        // additionalProperties: false everywhere; required fields; types.
        let found = FlowChecker.check(data: Data(#"{"id": "x", "title": 3, "lanes": [], "steps": [{"id": "a"}], "extra": 1}"#.utf8))
        XCTAssertEqual(Set(found.map(\.path)), ["$.title", "$.extra", "$.lanes", "$.steps[0].kind"])
        XCTAssertTrue(found.allSatisfy { $0.kind == .shape })
    }
}
