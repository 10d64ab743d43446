import XCTest
import Foundation
@testable import EventStore
import StoreCore
import LogFiles
import TestSupport

/// An ingest keeps SQLite's locks on the store for as long as it writes: another process
/// that opens and closes the store meanwhile (`sqlite3`, DuckDB) must not find it unlocked,
/// or its close takes itself for the store's last connection, checkpoints and deletes the WAL
/// the ingest is writing (POSIX locks are the process's: closing any descriptor of the file
/// drops them all).
final class IngestorLocksTests: XCTestCase {
    /// While the ingest writes (after a batch, write-behind having run many times), another
    /// process's exclusive lock on the store's file is refused.
    func testAnotherProcessCannotLockTheStoreWhileAnIngestWrites() throws {
        guard try PythonModules.require("fcntl", missing: "python3 is not installed") else { return }
        let dir = tempDir()
        let path = dir.appendingPathComponent("s.sqlite").path
        let input = dir.appendingPathComponent("events.ndjson").path
        let lines = (0..<9_000).map { n in
            #"{"event_id":"e-\#(n)","event":"onboarding.step_viewed","user_id":"u-\#(n % 300)","ts":"2026-10-01T10:00:00Z","flow":"glp1","step":"s\#(n % 7)"}"#
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let store = try EventStore(path: path)
        var verdicts: [Int32] = []
        let summary = try Ingestor(store: store, options: IngestOptions(now: fixedClock(1_000)))
            .ingest(try InputSource.discover([input])) { _ in
                // Longer than write-behind's interval, many times over.
                Thread.sleep(forTimeInterval: 0.03)
                verdicts.append(FileLocks.lockFromAnotherProcess(path))
            }
        XCTAssertEqual(summary.accepted, 9_000)
        XCTAssertFalse(verdicts.isEmpty)
        // 1: refused, the ingest's locks held; 0: granted, the store left unlocked.
        XCTAssertEqual(verdicts, Array(repeating: 1, count: verdicts.count), "another process locked the store while an ingest wrote it")
    }
}
