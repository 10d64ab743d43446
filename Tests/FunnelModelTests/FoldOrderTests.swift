import XCTest
import FunnelModel

/// The fold order of events (time, then seq): positions in that order, whether the events
/// came in it already or not, ties on time broken by seq.
final class FoldOrderTests: XCTestCase {
    private func order(_ keys: [(Int64, Int64)]) -> [Int] {
        FoldOrder.indices(count: keys.count) { FoldOrder.Key(time: keys[$0].0, seq: keys[$0].1) }
    }

    /// Every position sorted by (time, seq), stable for equal keys: the order asked of it.
    private func expected(_ keys: [(Int64, Int64)]) -> [Int] {
        keys.indices.sorted { a, b in
            keys[a].0 != keys[b].0 ? keys[a].0 < keys[b].0 : keys[a].1 != keys[b].1 ? keys[a].1 < keys[b].1 : a < b
        }
    }

    func testEventsInOrderKeepTheirPositions() {
        XCTAssertEqual(order([]), [])
        XCTAssertEqual(order([(5, 1)]), [0])
        XCTAssertEqual(order([(1, 9), (2, 3), (2, 4), (7, 1)]), [0, 1, 2, 3])
    }

    func testEventsOutOfOrderAreSortedByTimeThenSeq() {
        XCTAssertEqual(order([(3, 1), (1, 2), (2, 3)]), [1, 2, 0])
        XCTAssertEqual(order([(1, 5), (1, 4), (0, 9)]), [2, 1, 0])
        // In order until the last one.
        XCTAssertEqual(order([(1, 1), (2, 2), (3, 3), (0, 4)]), [3, 0, 1, 2])
        // Equal keys keep their positions' order.
        XCTAssertEqual(order([(2, 2), (1, 1), (2, 2)]), [1, 0, 2])
        XCTAssertEqual(order([(1, 1), (1, 1)]), [0, 1])
    }

    func testEveryOrderOfSmallListsMatchesASortOfThePositions() {
        // All lists of four keys from a small alphabet: in order, out of order, with ties.
        let alphabet: [(Int64, Int64)] = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 5)]
        var checked = 0
        for a in alphabet { for b in alphabet { for c in alphabet { for d in alphabet {
            let keys = [a, b, c, d]
            XCTAssertEqual(order(keys), expected(keys), "\(keys)")
            checked += 1
        } } } }
        XCTAssertEqual(checked, 625)
    }

    func testPackedAndPairedSortsAgreeOnRandomLists() {
        // Seqs rising with the positions (packed: time and position in one word), seqs in any
        // order, and times too far apart to pack (paired): each as a sort of the positions.
        var rng = SystemRandomNumberGenerator()
        var checked = 0
        for n in [2, 3, 17, 37, 81, 300] {
            for _ in 0..<50 {
                let times = (0..<n).map { _ in Int64.random(in: 0..<20, using: &rng) * 1_000_000 }
                let rising = times.indices.map { (times[$0], Int64($0) * 3 + Int64.random(in: 0...2, using: &rng)) }
                let shuffled = times.map { ($0, Int64.random(in: 0..<1_000, using: &rng)) }
                var far = rising
                far[n / 2].0 = Int64(1) << 50
                for keys in [rising, shuffled, far] {
                    XCTAssertEqual(order(keys), expected(keys), "\(keys)")
                    checked += 1
                }
            }
        }
        XCTAssertEqual(checked, 900)
        // Ties on time and seq keep their positions; negative and extreme times.
        XCTAssertEqual(order([(5, 1), (5, 1), (-3, 2), (5, 2), (-3, 2)]), [2, 4, 0, 1, 3])
        XCTAssertEqual(order([(.max, 1), (.min, 2), (0, 3)]), [1, 2, 0])
    }
}
