import XCTest
import Foundation
@testable import Workers

final class WorkerThreadTests: XCTestCase {
    /// A worker thread runs its jobs in order; `runAndWait` answers after the jobs before it.
    func testAWorkerThreadRunsItsJobsInOrder() {
        let worker = WorkerThread(name: "funnel-test")
        let order = Locked([Int]())
        for i in 0..<100 { worker.run { order.withLock { $0.append(i) } } }
        XCTAssertEqual(worker.runAndWait { order.withLock { $0.count } }, 100)
        XCTAssertEqual(order.withLock { $0 }, Array(0..<100))
    }
}
