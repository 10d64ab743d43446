import XCTest
import FunnelModel
import LogFiles
@testable import EventStore
import TestSupport
import StoreCore

/// `EventStore.forEachLine`: the stored lines, byte for byte, in arrival order.
final class EventStoreExportTests: XCTestCase {
    var store: EventStore!
    var stored: [StoredEvent] = []

    override func setUpWithError() throws {
        store = try EventStore(path: tempDir().appendingPathComponent("s.sqlite").path)
        let paths = ["glp1", "baby-basics", "edge", "bad"].map { sampleData.appendingPathComponent($0).path }
        let summary = try Ingestor(store: store, options: IngestOptions(now: fixedClock(1_000))).ingest(try InputSource.discover(paths))
        stored = try store.storedEvents()
        XCTAssertEqual(stored.count, summary.accepted)
    }

    func lines(_ selection: EventSelection = EventSelection()) throws -> [String] {
        var out: [String] = []
        let n = try store.forEachLine(selection) { out.append(String(decoding: $0, as: UTF8.self)) }
        XCTAssertEqual(n, out.count)
        return out
    }

    func testEveryAcceptedLineOnceInArrivalOrder() throws {
        let all = try lines()
        XCTAssertEqual(all, stored.map(\.recorded.line))
        // The dedupe file: 9 lines, 5 events; its CRLF lines come back without the CR, its
        // escapes as written; no re-sent copy and no conflicting copy.
        let ids = all.compactMap { line in line.range(of: #"dup-\d{4}"#, options: .regularExpression).map { String(line[$0]) } }
        XCTAssertEqual(ids, ["dup-0001", "dup-0002", "dup-0003", "dup-0005", "dup-0006"])
        XCTAssertTrue(all.contains { $0.contains(#""u-\u0037""#) })
        XCTAssertFalse(all.contains { $0.contains("\r") })
        // No quarantined line: each one decodes as an event.
        var decoder = EventDecoder()
        for line in all {
            let ok = Array(line.utf8).withUnsafeBufferPointer { b in
                if case .success = decoder.envelope(b) { return true } else { return false }
            }
            XCTAssertTrue(ok, line)
        }
    }

    func testSelectionByFlowUserAndTime() throws {
        func expected(_ keep: (Event) -> Bool) -> [String] { stored.filter { keep($0.recorded.event) }.map(\.recorded.line) }
        let flow = try lines(EventSelection(flow: "baby-basics"))
        XCTAssertEqual(flow, expected { $0.flow == "baby-basics" })
        XCTAssertGreaterThan(flow.count, 1_000)
        let user = try lines(EventSelection(user: "u-000006"))
        XCTAssertEqual(user, expected { $0.userID == "u-000006" })
        XCTAssertEqual(Set(stored.filter { $0.recorded.event.userID == "u-000006" }.map(\.recorded.event.flow)).count, 2,
                       "u-000006 has events in both flows")
        XCTAssertEqual(try lines(EventSelection(flow: "glp1", user: "u-000006")),
                       expected { $0.userID == "u-000006" && $0.flow == "glp1" })
        let since = Timestamp(micros: 1_791_072_000_000_000)   // 2026-10-04
        let until = Timestamp(micros: 1_791_158_400_000_000)   // 2026-10-05
        let day = try lines(EventSelection(since: since, until: until))
        XCTAssertEqual(day, expected { $0.time >= since && $0.time < until })
        XCTAssertGreaterThan(day.count, 100)
        XCTAssertEqual(try lines(EventSelection(flow: "glp1", user: "u-000006", since: since, until: until)),
                       expected { $0.userID == "u-000006" && $0.flow == "glp1" && $0.time >= since && $0.time < until })
        XCTAssertEqual(try lines(EventSelection(flow: "no-such-flow")), [])
        XCTAssertEqual(try lines(EventSelection(user: "no-such-user")), [])
    }
}
