import XCTest
import Foundation
@testable import Workers

final class RepeatingTests: XCTestCase {
    /// The job runs again and again until `stop()`, which waits for it and runs only once.
    func testTheJobRepeatsUntilStopped() {
        let runs = Locked(0)
        let repeating = Repeating(name: "funnel-test", every: 0.01) { runs.withLock { $0 += 1 } }
        let deadline = Date(timeIntervalSinceNow: 10)
        while runs.withLock({ $0 }) < 3 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertTrue(repeating.stop())
        let stopped = runs.withLock { $0 }
        XCTAssertGreaterThanOrEqual(stopped, 3)
        XCTAssertFalse(repeating.stop())
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(runs.withLock { $0 }, stopped, "no run after stop")
    }
}
