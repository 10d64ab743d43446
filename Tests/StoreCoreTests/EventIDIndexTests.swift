import XCTest
@testable import StoreCore

/// Ids found by their hash, told apart by their bytes when two share one.
final class EventIDIndexTests: XCTestCase {
    /// Where an id and its line are in a test's buffer.
    struct Place: Equatable {
        var id: Range<Int>
        var line: Range<Int>
    }

    func testIdsAreFoundByHashAndToldApartByTheirBytes() {
        // "ev-1" and "ev-2" are given one hash on purpose: the second goes beside the first.
        let buffer = Array("ev-1{line 1}ev-2{line 2}ev-3{line 3}".utf8)
        let one = Place(id: 0..<4, line: 4..<12), two = Place(id: 12..<16, line: 16..<24)
        let three = Place(id: 24..<28, line: 28..<36)
        var index = EventIDIndex<Place>()
        buffer.withUnsafeBufferPointer { b in
            func id(_ p: Place) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: b[p.id]) }
            func isID(_ p: Place) -> (Place) -> Bool { { b[$0.id].elementsEqual(id(p)) } }
            XCTAssertNil(index.findOrAdd(id(one), hash: 7, line: one, isID: isID(one)))
            XCTAssertNil(index.findOrAdd(id(two), hash: 7, line: two, isID: isID(two)))
            XCTAssertNil(index.findOrAdd(id(three), hash: 9, line: three, isID: isID(three)))
            XCTAssertEqual(index.findOrAdd(id(one), hash: 7, line: three, isID: isID(one)), one)
            XCTAssertEqual(index.find(id(two), hash: 7, isID: isID(two)), two)
            XCTAssertEqual(index.find(id(three), hash: 9, isID: isID(three)), three)
            XCTAssertNil(index.find(id(three), hash: 7, isID: isID(three)))
            XCTAssertNil(index.find(id(one), hash: 8, isID: isID(one)))
        }
        index.removeAll(keepingRoomFor: 10)
        XCTAssertTrue(index.isEmpty)
    }

    func testThousandsOfIdsAreFoundAfterTheTableGrowsAndAfterItIsEmptied() {
        // Ids "id-0"… in one buffer; hashes that differ only in their low bits, so that many
        // start from neighbouring slots.
        var buffer: [UInt8] = []
        var ranges: [Range<Int>] = []
        for i in 0..<5_000 {
            let start = buffer.count
            buffer += Array("id-\(i)".utf8)
            ranges.append(start..<buffer.count)
        }
        var index = EventIDIndex<Int>()
        buffer.withUnsafeBufferPointer { b in
            func id(_ i: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: b[ranges[i]]) }
            func isID(_ i: Int) -> (Int) -> Bool { { b[ranges[$0]].elementsEqual(id(i)) } }
            for round in 0..<2 {
                for i in ranges.indices { XCTAssertNil(index.findOrAdd(id(i), hash: Int64(i), line: i, isID: isID(i))) }
                for i in ranges.indices {
                    XCTAssertEqual(index.find(id(i), hash: Int64(i), isID: isID(i)), i)
                    XCTAssertEqual(index.findOrAdd(id(i), hash: Int64(i), line: 0, isID: isID(i)), i)
                }
                XCTAssertNil(index.find(id(1), hash: 5_001, isID: isID(1)))
                index.removeAll(keepingRoomFor: round == 0 ? 100 : 10_000)
                XCTAssertTrue(index.isEmpty)
                XCTAssertNil(index.find(id(1), hash: 1, isID: isID(1)))
            }
        }
    }
}
