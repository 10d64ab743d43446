import XCTest
@testable import Workers

final class WorkerCountTests: XCTestCase {
    func testTheMachineCountsUnlessOverridden() {
        XCTAssertEqual(WorkerCount.resolve(nil, cores: 2), 2)
        XCTAssertEqual(WorkerCount.resolve(nil, cores: 16), 16)
        XCTAssertEqual(WorkerCount.resolve("3", cores: 2), 3)
        XCTAssertEqual(WorkerCount.resolve(" 1 ", cores: 8), 1)
    }

    func testAnOverrideThatIsNoCountIsIgnored() {
        XCTAssertEqual(WorkerCount.resolve("0", cores: 4), 4)
        XCTAssertEqual(WorkerCount.resolve("-2", cores: 4), 4)
        XCTAssertEqual(WorkerCount.resolve("two", cores: 4), 4)
        XCTAssertEqual(WorkerCount.resolve("", cores: 0), 1)
    }

    func testTheProcessCountIsTheMachinesOrTheOverride() {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        XCTAssertEqual(WorkerCount.machine, WorkerCount.resolve(ProcessInfo.processInfo.environment[WorkerCount.variable], cores: cores))
        XCTAssertGreaterThanOrEqual(WorkerCount.machine, 1)
    }
}
