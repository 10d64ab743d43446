import FunnelModel
import XCTest
@testable import Flows

final class FlowTextTests: XCTestCase {
    func testGraphsFitEightyColumnsAndAlignSharedSteps() throws {
        for flow in Flows.builtIn {
            let text = FlowText.graph(flow)
            for line in text.split(separator: "\n") {
                XCTAssertLessThanOrEqual(line.count, 80, "\(flow.id): \(line)")
            }
        }
        let glp1 = FlowText.graph(try FlowCatalog().flow("glp1")).split(separator: "\n").map(String.init)
        // Shared steps sit on one row in both lanes; lane-only steps on their side only.
        XCTAssertTrue(glp1.contains { $0.hasPrefix("weightGoal ") && $0.hasSuffix("weightGoal") }, glp1.joined(separator: "\n"))
        XCTAssertTrue(glp1.contains { $0.hasPrefix(String(repeating: " ", count: 41) + "medicationSelection") })
        XCTAssertTrue(glp1.contains { $0.hasPrefix("  if weightGoal != maintain") })
        XCTAssertTrue(glp1.contains { $0.hasPrefix("  flag completionScreenForExplorers") })
        XCTAssertTrue(glp1.contains { $0.hasPrefix("planPreview [terminal]") })
    }

    func testAlignedRowsHandleCrossedOrders() {
        let lanes = [
            FlowDefinition.Lane(id: "x", steps: ["a", "b", "c", "d"].map { .init(id: $0) }),
            FlowDefinition.Lane(id: "y", steps: ["a", "c", "e", "b", "d"].map { .init(id: $0) }),
        ]
        let rows = FlowText.alignedRows(lanes)
        // Every step of every lane appears exactly once, in lane order.
        for k in 0..<2 {
            XCTAssertEqual(rows.compactMap { $0[k] }, Array(0..<lanes[k].steps.count))
        }
        XCTAssertEqual(rows.first ?? [], [0, 0], "a shares the first row")
        XCTAssertEqual(rows.last ?? [], [3, 4], "d shares the last row")
    }

    func testPathText() throws {
        let flow = try FlowCatalog().flow("glp1")
        let path = flow.expectedPath(ConditionContext(values: ["journeyStatus": .string("already_on_glp1"), "weightGoal": .string("maintain")]))
        let text = FlowText.path(flow, path)
        XCTAssertTrue(text.hasPrefix("glp1: lane glp1 (journeyStatus = already_on_glp1)\n"), text)
        XCTAssertTrue(text.contains("  - goalWeight"))
        XCTAssertTrue(text.contains("skipped: weightGoal = maintain"))
        XCTAssertTrue(text.contains("undetermined: injectionFrequency not answered yet"))
        for line in text.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 80, String(line)) }
    }

    func testJSONHasStepsWithTheirLanes() throws {
        let json = FlowText.json(try FlowCatalog().entries)
        guard case .array(let flows) = json, let glp1 = flows.first(where: { $0.objectValue?["id"] == .string("glp1") })?.objectValue,
              case .array(let steps)? = glp1["steps"] else { return XCTFail("shape") }
        let med = steps.first { $0.objectValue?["id"] == .string("medicationSelection") }?.objectValue
        XCTAssertEqual(med?["lanes"], .array([.string("glp1")]))
        XCTAssertEqual(med?["kind"], .string("screen"))
        XCTAssertEqual(glp1["cohorts"].map { if case .array(let c) = $0 { return c.count } else { return 0 } }, 2)
    }
}
