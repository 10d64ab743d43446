import XCTest
import Workers

final class CollectionPartsTests: XCTestCase {
    /// Consecutive parts of the size asked, the last shorter, covering every index once.
    func testPartsCoverEveryIndexInOrder() {
        let items = Array(0..<10)
        XCTAssertEqual(items.partRanges(size: 4), [0..<4, 4..<8, 8..<10])
        XCTAssertEqual(items.partRanges(size: 10), [0..<10])
        XCTAssertEqual(items.partRanges(size: 20), [0..<10])
        XCTAssertEqual(items.partRanges(size: 1).count, 10)
        XCTAssertEqual([Int]().partRanges(size: 3), [])
        XCTAssertEqual(items.partRanges(size: 3).flatMap { items[$0] }, items)
    }
}
