import XCTest
import GRDB
import FunnelModel
@testable import EventStore
import TestSupport
import StoreCore
import LogFiles

/// The log in blocks: what a block holds reads back the same, through `LogRows` and through
/// the `events` view, and a store of rows of one event each moves into blocks unchanged.
final class EventBlocksTests: XCTestCase {
    func store() throws -> EventStore {
        try EventStore(path: tempDir().appendingPathComponent("s.sqlite").path)
    }

    /// Every row of the log as `LogRows` reads it, its body as hex.
    func rows(_ db: Database) throws -> [[String]] {
        var out: [[String]] = []
        try LogRows(db).forEach(LogRows.Selection(), doing: "reading the log") { r in
            out.append([r.seq, r.idHash, r.user, r.flow, r.ts, r.offset, r.inputID, r.line, r.event, r.step ?? -1].map { "\($0)" }
                       + [r.body.map { String(format: "%02X", $0) }.joined()])
        }
        return out
    }

    func testABlockReadsBackItsEventsThroughTheReaderAndTheView() throws {
        let st = try store()
        // Extremes: times before 1970 and far ahead, negative offsets, large atoms and lines,
        // no step, an empty body.
        let events = [
            EventBlock.Event(idHash: -1, user: 1, flow: 2, event: 3, step: 0, ts: -86_400_000_001, offset: -43_200, line: 7),
            EventBlock.Event(idHash: Int64.max, user: 9_999_999_999, flow: 2, event: 40, step: 12, ts: 253_402_300_799_999_999,
                             offset: 50_400, line: 1),
            EventBlock.Event(idHash: 0, user: 5, flow: 123_456, event: 3, step: 1, ts: 0, offset: 0, line: 10_000_000_000),
        ]
        let bodies: [UInt8] = [1, 2, 3, 4, 5, 6]
        let ends = [2, 2, 6]
        try st.writer.write { db in
            try db.execute(sql: """
                INSERT INTO inputs (id, path, sha256, size, lines, accepted, duplicates, conflicts, quarantined, unplanned,
                    outcome, error, started_us, finished_us) VALUES (77, 'planted', 'x', 0, 3, 3, 0, 0, 0, 0, 'complete', NULL, 0, 0)
                """)
            var blocks = try EventBlocks(db)
            try bodies.withUnsafeBufferPointer { b in
                try blocks.write(firstSeq: 41, inputID: 77, events, bodies: b, ends: ends, doing: "writing a block")
            }
        }
        let expected: [[String]] = [
            ["41", "-1", "1", "2", "-86400000001", "-43200", "77", "7", "3", "-1", "0102"],
            ["42", "\(Int64.max)", "9999999999", "2", "253402300799999999", "50400", "77", "1", "40", "12", ""],
            ["43", "0", "5", "123456", "0", "0", "77", "10000000000", "3", "1", "03040506"],
        ]
        try st.writer.read { db in
            XCTAssertEqual(try rows(db), expected)
            let view = try Row.fetchAll(db, sql: """
                SELECT seq, user, flow, ts_us, ts_offset, input_id, line_no, event, coalesce(step, -1), hex(body) FROM events ORDER BY seq
                """).map { r in (0..<10).map { "\(r[$0] as DatabaseValue)".replacingOccurrences(of: "\"", with: "") } }
            XCTAssertEqual(view, expected.map { Array($0.prefix(1)) + Array($0[2...]) })
            XCTAssertEqual(try LogRows.lastSeq(in: db), 43)
            XCTAssertTrue(try LogRows.hasRows(in: 43..<50, in: db))
            XCTAssertFalse(try LogRows.hasRows(in: 44..<50, in: db))
            XCTAssertFalse(try LogRows.hasRows(in: 1..<41, in: db))
            XCTAssertEqual(try LogRows(db).row(seq: 42, doing: "reading") { $0.user }, 9_999_999_999)
            XCTAssertNil(try LogRows(db).row(seq: 44, doing: "reading") { $0.user })
            XCTAssertEqual(try LogRows.latestTime(notAfter: 1, in: db), 0)
        }
    }

    /// A store of the layout before blocks opens with its log moved into them: every row the
    /// same, and what the store says of its events the same.
    func testAStoreOfRowsMovesIntoBlocksUnchanged() throws {
        let st = try store()
        let paths = ["glp1", "edge", "bad"].map { sampleData.appendingPathComponent($0).path }
        _ = try Ingestor(store: st, options: IngestOptions(now: fixedClock(1_000))).ingest(try InputSource.discover(paths))
        let before = try st.writer.read { db in try rows(db) }
        let events = try st.storedEvents()
        try st.writer.write { db in
            try LegacyLog.downgrade(db)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM events"), before.count)
        }
        let reopened = try EventStore(path: st.path)
        try reopened.writer.read { db in
            XCTAssertEqual(try rows(db), before)
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT type FROM sqlite_master WHERE name = 'events'"), "view")
            // Blocks of consecutive events of one input, as many as a block holds.
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT max(count) FROM event_blocks"), Tuning.eventsPerBlock)
        }
        XCTAssertEqual(try reopened.storedEvents(), events)
        XCTAssertGreaterThan(before.count, 1_000)
    }
}
