import XCTest
import FunnelModel
import LogFiles
import Flows
import StoreCore
import EventStore
import TestSupport

/// The in-memory backend (`MemoryStore`, in TestSupport) implements only the core's write
/// and read protocols and is driven by the same `IngestDriver`: on every sample-data log, the
/// bad and edge inputs too, it stores what the SQLite store stores, line for line.
final class MemoryStoreTests: XCTestCase {
    func testTheMemoryStoreHoldsWhatSQLiteHolds() throws {
        let options = IngestOptions(flows: Flows.builtIn, now: fixedClock(1_700_000_000_000_000))
        let inputs = try InputSource.discover(["glp1", "baby-basics", "screentime-rewards", "shieldai", "trendy", "edge", "bad"]
            .map { sampleData.appendingPathComponent($0).path })
        let sqlite = try EventStore(path: tempDir().appendingPathComponent("s.sqlite").path)
        var expected = try Ingestor(store: sqlite, options: options).ingest(inputs)
        let memory = MemoryStore(options: options)
        var got = try memory.ingest(inputs)
        // A second run skips every input on both.
        XCTAssertEqual(try memory.ingest(inputs).skipped.count, try Ingestor(store: sqlite, options: options).ingest(inputs).skipped.count)
        expected.elapsedSeconds = 0
        got.elapsedSeconds = 0
        XCTAssertEqual(got, expected)
        XCTAssertGreaterThan(got.accepted, 10_000)
        XCTAssertGreaterThan(got.duplicates, 0)
        XCTAssertGreaterThan(got.conflicts, 0)
        XCTAssertGreaterThan(got.quarantined, 0)
        XCTAssertFalse(got.failures.isEmpty, "the bad inputs fail on both")

        XCTAssertEqual(try memory.inputs(), try sqlite.inputs())
        XCTAssertEqual(try memory.quarantine(), try sqlite.quarantine())
        XCTAssertEqual(try memory.flows(), try sqlite.flows())
        XCTAssertEqual(try memory.latestEventTime(notAfter: nil), try sqlite.latestEventTime(notAfter: nil))
        let bound = Timestamp(micros: 1_759_500_000_000_000)
        XCTAssertEqual(try memory.latestEventTime(notAfter: bound), try sqlite.latestEventTime(notAfter: bound))

        // Every user's events, with their seqs, lines and decoded values; their copies.
        var users = Set<String>(), ids: [String] = []
        try sqlite.forEachEvent(flow: nil) { users.insert($0.event.userID); ids.append($0.event.id) }
        XCTAssertGreaterThan(users.count, 300)
        for user in users.sorted() {
            XCTAssertEqual(try memory.events(user: user, flow: nil), try sqlite.events(user: user, flow: nil), user)
        }
        XCTAssertEqual(try memory.duplicates(ofEventIDs: ids), try sqlite.duplicates(ofEventIDs: ids))
        var memoryCount = 0
        try memory.forEachEvent(flow: "glp1") { _ in memoryCount += 1 }
        var sqliteCount = 0
        try sqlite.forEachEvent(flow: "glp1") { _ in sqliteCount += 1 }
        XCTAssertEqual(memoryCount, sqliteCount)
        XCTAssertEqual(try memory.events(seqs: [1, 2, 3]).map(\.seq), [1, 2, 3])
    }
}
