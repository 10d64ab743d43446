import XCTest
import Foundation
@testable import Workers

final class LockedTests: XCTestCase {
    /// Threads that add to one count through the box lose no addition.
    func testEveryAdditionFromManyThreadsCounts() {
        let count = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { count.withLock { $0 += 1 } }
        }
        XCTAssertEqual(count.withLock { $0 }, 80_000)
    }

    func testWithLockReturnsAndRethrows() {
        struct Refused: Error {}
        let box = Locked([1, 2])
        XCTAssertEqual(box.withLock { state -> Int in
            state.append(3)
            return state.count
        }, 3)
        XCTAssertThrowsError(try box.withLock { _ in throw Refused() })
        XCTAssertEqual(box.withLock { $0 }, [1, 2, 3])
    }
}
