import XCTest
@testable import EventStore
import TestSupport

final class WriterLockTests: XCTestCase {
    /// A second writer fails at once without waiting, and gets the lock once the first lets go.
    func testOneWriterAtATime() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        var first: WriterLock? = try WriterLock(storePath: store, wait: false)
        XCTAssertEqual(first?.path, store + ".lock")
        XCTAssertThrowsError(try WriterLock(storePath: store, wait: false)) { error in
            XCTAssertTrue("\(error)".contains("another ingest is writing \(store)"), "\(error)")
        }
        first = nil
        XCTAssertNoThrow(try WriterLock(storePath: store, wait: false))
    }

    /// A waiting writer says so once, then has the lock when the holder lets go.
    func testAWaitingWriterGetsTheLockWhenItIsFree() throws {
        /// The holder's lock, let go on another thread.
        final class Holder: @unchecked Sendable { var lock: WriterLock? }
        let store = tempDir().appendingPathComponent("s.sqlite").path
        let holder = Holder()
        holder.lock = try WriterLock(storePath: store, wait: false)
        let released = expectation(description: "released")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
            holder.lock = nil
            released.fulfill()
        }
        var waited = 0
        let start = Date()
        _ = try WriterLock(storePath: store, wait: true) { waited += 1 }
        XCTAssertEqual(waited, 1)
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 0.2)
        wait(for: [released], timeout: 5)
    }
}
