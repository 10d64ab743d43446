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

    func testThousandsOfIdsAreFoundAfterTheTableGrowsAndAfterItIsEmptied() {
        // Ids "id-0"… in one buffer; hashes that differ only in their low bits, so that many
        // start from neighbouring slots.
        var buffer: [UInt8] = []
        var entries: [EventIDIndex<Int>.Entry] = []
        for i in 0..<5_000 {
            let start = buffer.count
            buffer += Array("id-\(i)".utf8)
            entries.append(.init(id: start..<buffer.count, line: i))
        }
        var index = EventIDIndex<Int>()
        buffer.withUnsafeBufferPointer { b in
            func id(_ i: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: b[entries[i].id]) }
            for round in 0..<2 {
                for i in entries.indices { XCTAssertNil(index.findOrAdd(id(i), hash: Int64(i), entry: entries[i], in: b)) }
                for i in entries.indices {
                    XCTAssertEqual(index.find(id(i), hash: Int64(i), in: b)?.line, i)
                    XCTAssertEqual(index.findOrAdd(id(i), hash: Int64(i), entry: entries[0], in: b)?.line, i)
                }
                XCTAssertNil(index.find(id(1), hash: 5_001, in: b))
                index.removeAll(keepingRoomFor: round == 0 ? 100 : 10_000)
                XCTAssertTrue(index.isEmpty)
                XCTAssertNil(index.find(id(1), hash: 1, in: b))
            }
        }
    }
}
