import XCTest
import FunnelModel
@testable import Projections
@testable import Journeys

/// An input's pending fold split in two: the users new with it (folded from their held events
/// alone) and the rest, each part in first-touch order with its own held events.
final class PendingFoldTests: XCTestCase {
    func held(_ seqs: [Int64]) -> [HeldEvent] {
        seqs.map { HeldEvent(seq: $0, time: Timestamp(micros: $0 * 1_000), names: 0, context: 0, properties: 0) }
    }

    func testTakingTheNewUsersLeavesTheRestInOrder() {
        let key = { JourneyKey(flow: "glp1", user: $0) }
        // "c" is new but past the buffer limit (nil: folded from the log), "b" and "e" returning.
        var pending = PendingFold(order: [key("a"), key("b"), key("c"), key("d"), key("e")],
                                  buffered: [key("a"): held([1, 4]), key("b"): held([2]), key("c"): nil, key("d"): held([3]),
                                             key("e"): nil],
                                  table: EventParts().table, firstSeq: 1, newUsers: ["a", "c", "d"], through: 4)
        let new = pending.takeNewUsers()
        XCTAssertEqual(new.order, [key("a"), key("d")])
        XCTAssertEqual(new.buffered.keys.sorted { $0.user < $1.user }, [key("a"), key("d")])
        XCTAssertEqual(new.buffered[key("a")]??.map(\.seq), [1, 4])
        XCTAssertEqual(new.buffered[key("d")]??.map(\.seq), [3])
        XCTAssertEqual([new.firstSeq, new.through], [1, 4])
        XCTAssertEqual(pending.order, [key("b"), key("c"), key("e")])
        XCTAssertEqual(pending.buffered.count, 3)
        XCTAssertEqual(pending.buffered[key("b")]??.map(\.seq), [2])
        XCTAssertNotNil(pending.buffered[key("c")] as [HeldEvent]??)
        XCTAssertNil(pending.buffered[key("c")] ?? nil)
    }
}
