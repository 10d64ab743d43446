import XCTest
import Foundation
@testable import EventStore
import StoreCore
import LogFiles
import TestSupport

/// The store's own files are not logs: given as inputs, they are refused before anything is read.
final class IngestorOwnFilesTests: XCTestCase {
    /// The store's database, its WAL (open, so it exists) and its writer lock given as inputs
    /// are each refused by name, and the ledger stays as it was.
    func testTheStoresOwnFilesAreRefused() throws {
        let dir = tempDir()
        let path = dir.appendingPathComponent("s.sqlite").path
        let log = dir.appendingPathComponent("events.ndjson").path
        try #"{"event_id":"e-1","event":"onboarding.started","user_id":"u-1","ts":"2026-10-01T10:00:00Z","flow":"glp1"}"#
            .appending("\n").write(toFile: log, atomically: true, encoding: .utf8)
        let store = try EventStore(path: path)
        let ingestor = Ingestor(store: store, options: IngestOptions(now: fixedClock(1_000)))
        XCTAssertEqual(try ingestor.ingest(try InputSource.discover([log])).accepted, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "-wal"))
        // The writer lock, as `funnel ingest` holds it.
        let lock = try WriterLock(storePath: path, wait: false)
        for (input, named) in [(path, "the store"), (path + "-wal", "the store's wal file (\(path)-wal)"),
                               (path + ".lock", "the store's lock file (\(path).lock)")] {
            XCTAssertThrowsError(try ingestor.ingest([InputSource(path: log), InputSource(path: input)])) { error in
                XCTAssertEqual("\(error)", "store: while ingesting \(input) into \(path): it is \(named), not a log; nothing was ingested")
            }
        }
        XCTAssertEqual(try store.inputs().count, 1)
        withExtendedLifetime(lock) {}
    }
}
