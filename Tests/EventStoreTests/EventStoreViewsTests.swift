import XCTest
import GRDB
import FunnelModel
import LogFiles
@testable import EventStore
import TestSupport
import StoreCore

/// The `event_log` view, the `event` and `step` columns behind it, and their migration.
final class EventStoreViewsTests: XCTestCase {
    /// Every flow's sample logs, the dedupe edge cases and every kind of bad input.
    func sampleStore() throws -> (EventStore, IngestSummary) {
        let store = try EventStore(path: tempDir().appendingPathComponent("s.sqlite").path)
        let paths = ["glp1", "baby-basics", "edge", "bad"].map { sampleData.appendingPathComponent($0).path }
        let summary = try Ingestor(store: store, options: IngestOptions(now: fixedClock(1_000)))
            .ingest(try InputSource.discover(paths))
        return (store, summary)
    }

    struct LogRow: Equatable {
        var seq: Int64, event: String, user: String, flow: String, step: String?, ts: String, input: String, line: Int
    }

    func logRows(_ store: EventStore) throws -> [LogRow] {
        try store.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT seq, event, user_id, flow, step, ts_utc, input, line_no FROM event_log ORDER BY seq")
                .map { LogRow(seq: $0[0], event: $0[1], user: $0[2], flow: $0[3], step: $0[4], ts: $0[5], input: $0[6], line: $0[7]) }
        }
    }

    func testEventLogIsTheStoredEventsAsText() throws {
        let (store, summary) = try sampleStore()
        let stored = try store.storedEvents()
        let inputs = Dictionary(uniqueKeysWithValues: try store.inputs().map { ($0.id, $0.path) })
        let expected = stored.map { s in
            LogRow(seq: s.recorded.seq, event: s.recorded.event.rawName, user: s.recorded.event.userID, flow: s.recorded.event.flow,
                   step: s.recorded.event.step, ts: s.recorded.event.time.description, input: inputs[s.inputID] ?? "?",
                   line: s.lineNumber)
        }
        let rows = try logRows(store)
        XCTAssertEqual(rows.count, summary.accepted)
        XCTAssertGreaterThan(summary.duplicates + summary.conflicts + summary.quarantined, 20, "the sample has copies and bad lines")
        XCTAssertEqual(rows, expected)
        // The counts a data engineer would ask for, by event and by step.
        let byEvent = try store.writer.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT event, count(*) FROM event_log GROUP BY 1")
                .map { ($0[0] as String, $0[1] as Int) })
        }
        XCTAssertEqual(byEvent, Dictionary(grouping: stored, by: \.recorded.event.rawName).mapValues(\.count))
        XCTAssertEqual(byEvent["onboarding.started"], 574)
        let byStep = try store.writer.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT coalesce(step, '-'), count(*) FROM event_log GROUP BY 1")
                .map { ($0[0] as String, $0[1] as Int) })
        }
        XCTAssertEqual(byStep, Dictionary(grouping: stored, by: { $0.recorded.event.step ?? "-" }).mapValues(\.count))
    }

    /// A store made before the columns gets them filled in from its lines when it is opened.
    func testMigrationFillsTheColumnsOfAnOlderStore() throws {
        let (store, _) = try sampleStore()
        let before = try logRows(store)
        let path = store.path
        try store.writer.write { db in
            try LegacyLog.downgrade(db)
            try db.execute(sql: "DROP VIEW event_log")
            try db.execute(sql: "ALTER TABLE events DROP COLUMN event")
            try db.execute(sql: "ALTER TABLE events DROP COLUMN step")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v5:%'")
        }
        let reopened = try EventStore(path: path)
        XCTAssertEqual(try logRows(reopened), before)
        XCTAssertEqual(try reopened.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM events WHERE event IS NULL") }, 0)
    }

    func testUTCTextIsTimestampDescription() throws {
        let store = try EventStore(path: tempDir().appendingPathComponent("t.sqlite").path)
        let samples: [Int64] = [0, 1, 999, 1_000, 1_790_873_016_096_000, 1_790_873_016_096_123, -1, -1_000, -86_400_000_001,
                                253_402_300_799_999_999]
        for micros in samples {
            let text = try store.writer.read { db in
                try String.fetchOne(db, sql: "SELECT \(ReadableSQL.utcText("x")) FROM (SELECT ? AS x)", arguments: [micros])
            }
            XCTAssertEqual(text, Timestamp(micros: micros).description, "\(micros)")
        }
        XCTAssertNil(try store.writer.read { db in try String.fetchOne(db, sql: "SELECT " + ReadableSQL.utcText("NULL")) })
    }
}
