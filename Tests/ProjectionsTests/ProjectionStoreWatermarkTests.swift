import XCTest
import Journeys
@testable import Projections

/// Folded journeys are written in key order, as SQLite's BINARY collation orders their text:
/// by flow, then by user, byte by byte ("Z" 0x5A before "u", "zz" before "é" 0xC3 0xA9), two
/// rows of one key in the order they came.
final class ProjectionStoreWatermarkTests: XCTestCase {
    func row(_ flow: String, _ user: String, _ removed: Bool = false) -> FoldedRow {
        FoldedRow(key: JourneyKey(flow: flow, user: user), outcome: removed ? .none : .failed(user), fromLog: removed)
    }

    func testRowsAreWrittenByFlowThenUserInTheBytesOrder() {
        let rows = [row("glp1", "u-9"), row("fit", "u-2"), row("glp1", "Z-1"), row("glp1", "é-1"),
                    row("glp1", "u-10"), row("glp1", "u-9", true), row("glp1", "zz"), row("fit", "u-1"), row("glp1", "u-1"),
                    row("fi", "u-1")]
        let order = ProjectionStore.keyOrder(rows)
        // A key that is the start of another comes first ("fi" before "fit", "u-1" before "u-10").
        XCTAssertEqual(order.map { "\(rows[$0].key.flow)/\(rows[$0].key.user)" },
                       ["fi/u-1", "fit/u-1", "fit/u-2", "glp1/Z-1", "glp1/u-1", "glp1/u-10", "glp1/u-9", "glp1/u-9", "glp1/zz",
                        "glp1/é-1"])
        // The two rows of one key keep their order: the later one is written last.
        XCTAssertEqual(order.filter { rows[$0].key.user == "u-9" }, [0, 5])
        XCTAssertEqual(ProjectionStore.keyOrder([]), [])
    }
}
