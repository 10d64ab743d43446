import XCTest
@testable import EventStore
import TestSupport
import StoreCore

final class WriterLockTests: XCTestCase {
    /// A second writer fails at once without waiting, and gets the lock once the first lets go.
    func testOneWriterAtATime() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        var first: WriterLock? = try WriterLock(storePath: store, wait: false)
        XCTAssertEqual(first?.path, store + ".lock")
        XCTAssertThrowsError(try WriterLock(storePath: store, wait: false)) { error in
            XCTAssertTrue("\(error)".contains("another ingest or rebuild is writing \(store)"), "\(error)")
            XCTAssertEqual((error as? StoreError)?.kind, .busy)
        }
        first = nil
        XCTAssertNoThrow(try WriterLock(storePath: store, wait: false))
    }

    /// A reader sees whether a writer holds the lock, without creating the lock file, and its
    /// look does not make a writer that tries at that moment fail.
    func testIsHeldSaysWhetherAWriterHoldsTheLock() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        XCTAssertFalse(WriterLock.isHeld(storePath: store))
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + ".lock"), "a look creates nothing")
        var writer: WriterLock? = try WriterLock(storePath: store, wait: false)
        XCTAssertTrue(WriterLock.isHeld(storePath: store))
        writer = nil
        XCTAssertNil(writer)
        XCTAssertFalse(WriterLock.isHeld(storePath: store))
        // Looks over and over on another thread while a writer takes and drops the lock 200
        // times without waiting: every take succeeds.
        let done = DispatchSemaphore(value: 0)
        final class Flag: @unchecked Sendable { var stop = false }
        let flag = Flag()
        DispatchQueue.global().async {
            while !flag.stop { _ = WriterLock.isHeld(storePath: store) }
            done.signal()
        }
        var failures = 0
        for _ in 0..<200 {
            do { _ = try WriterLock(storePath: store, wait: false) } catch { failures += 1 }
        }
        flag.stop = true
        done.wait()
        XCTAssertEqual(failures, 0)
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
