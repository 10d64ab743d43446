import XCTest
import Journeys
import Simulator
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

    /// The order is the one comparing the keys' whole text, also where users share their
    /// first 8 bytes, end within them, hold a NUL or several-byte characters, or flows share
    /// their start.
    func testTheOrderIsTheWholeTextsOrderForManyGeneratedKeys() {
        let pieces = ["u-", "0", "1", "9", "a", "Z", "é", "\u{0}", "\u{10FFFF}", "user-0000000", "-"]
        let flows = ["glp1", "glp", "glp10", "fit", "é"]
        var rng = SplitMix64(seed: 41)
        for round in 0..<200 {
            var rows: [FoldedRow] = []
            for _ in 0..<(round % 40) {
                var user = ""
                for _ in 0..<Int(rng.next() % 6) { user += pieces[Int(rng.next() % UInt64(pieces.count))] }
                rows.append(row(flows[Int(rng.next() % UInt64(flows.count))], user))
            }
            let expected = rows.indices.sorted { a, b in
                let x = rows[a].key, y = rows[b].key
                if x.flow != y.flow { return Array(x.flow.utf8).lexicographicallyPrecedes(Array(y.flow.utf8)) }
                if x.user != y.user { return Array(x.user.utf8).lexicographicallyPrecedes(Array(y.user.utf8)) }
                return a < b
            }
            XCTAssertEqual(ProjectionStore.keyOrder(rows), expected, "round \(round)")
        }
    }
}
