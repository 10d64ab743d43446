import XCTest
@testable import StoreCore

/// Ids found by their hash, told apart by their bytes when two share one.
final class EventIDIndexTests: XCTestCase {
    func testIdsAreFoundByHashAndToldApartByTheirBytes() {
        // "ev-1" and "ev-2" are given one hash on purpose: the second goes beside the first.
        let buffer = Array("ev-1{line 1}ev-2{line 2}ev-3{line 3}".utf8)
        let one = EventIDIndex<Range<Int>>.Entry(id: 0..<4, line: 4..<12), two = EventIDIndex<Range<Int>>.Entry(id: 12..<16, line: 16..<24)
        let three = EventIDIndex<Range<Int>>.Entry(id: 24..<28, line: 28..<36)
        var index = EventIDIndex<Range<Int>>()
        buffer.withUnsafeBufferPointer { b in
            func id(_ e: EventIDIndex<Range<Int>>.Entry) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: b[e.id]) }
            XCTAssertNil(index.findOrAdd(id(one), hash: 7, entry: one, in: b))
            XCTAssertNil(index.findOrAdd(id(two), hash: 7, entry: two, in: b))
            XCTAssertNil(index.findOrAdd(id(three), hash: 9, entry: three, in: b))
            XCTAssertEqual(index.findOrAdd(id(one), hash: 7, entry: three, in: b)?.line, one.line)
            XCTAssertEqual(index.find(id(two), hash: 7, in: b)?.line, two.line)
            XCTAssertEqual(index.find(id(three), hash: 9, in: b)?.line, three.line)
            XCTAssertNil(index.find(id(three), hash: 7, in: b))
            XCTAssertNil(index.find(id(one), hash: 8, in: b))
        }
        index.removeAll(keepingRoomFor: 10)
        XCTAssertTrue(index.isEmpty)
    }
}
