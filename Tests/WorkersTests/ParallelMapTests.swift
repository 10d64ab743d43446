import XCTest
import Foundation
@testable import Workers

final class ParallelMapTests: XCTestCase {
    /// The results come in item order whatever the count of workers, each item worked once.
    func testResultsComeInItemOrderForEveryWorkerCount() {
        let items = Array(0..<1_000)
        for workers in [1, 2, 3, 8, 5_000] {
            let seen = Locked([Int: Int]())
            let squares = items.parallelMap(workers: workers) { i -> Int in
                seen.withLock { $0[i, default: 0] += 1 }
                return i * i
            }
            XCTAssertEqual(squares, items.map { $0 * $0 }, "\(workers) workers")
            XCTAssertEqual(seen.withLock { $0.count }, 1_000, "\(workers) workers")
            XCTAssertEqual(seen.withLock { Set($0.values) }, [1], "\(workers) workers")
        }
        XCTAssertEqual([Int]().parallelMap { $0 }, [])
    }

    /// Values holding references come out as made, each once: every result is its own
    /// object, held by the results alone (none kept or copied on the way).
    func testValuesComeOutOnceEach() {
        final class Box: Sendable {
            let i: Int
            init(_ i: Int) { self.i = i }
        }
        for workers in [1, 2, 8] {
            var boxes = Array(0..<500).parallelMap(workers: workers) { Box($0) }
            XCTAssertEqual(boxes.map(\.i), Array(0..<500), "\(workers) workers")
            XCTAssertEqual(Set(boxes.map(ObjectIdentifier.init)).count, 500, "\(workers) workers")
            for i in boxes.indices {
                XCTAssertTrue(isKnownUniquelyReferenced(&boxes[i]), "item \(i), \(workers) workers")
            }
        }
    }

    /// The first failure is thrown, once the workers are done; items after it are not taken.
    func testAFailureIsThrownAndStopsTakingItems() {
        struct Refused: Error, Equatable { let item: Int }
        let taken = Locked(0)
        XCTAssertThrowsError(try Array(0..<1_000).parallelMap(workers: 1) { i throws(Refused) -> Int in
            taken.withLock { $0 += 1 }
            if i == 10 { throw Refused(item: i) }
            return i
        }) { error in
            XCTAssertEqual(error as? Refused, Refused(item: 10))
        }
        XCTAssertEqual(taken.withLock { $0 }, 11)
    }
}
