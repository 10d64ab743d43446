import XCTest
import TestSupport
import Foundation
import GRDB
import FunnelModel
import EventStore
import LogFiles
import Simulator
import StoreCore
import LineParsing
@testable import Projections
@testable import Journeys

/// An input of several days whose events outgrow half of what the projection holds is
/// committed in segments, cut where a new day starts, each folded beside the next one like a
/// day's file; an ingest stopped between two segments is resumed by the next one after the last
/// committed line, to the store one run leaves.
final class SegmentedInputTests: DayFilesTestCase {

    func store(_ name: String) throws -> EventStore {
        try EventStore(path: dir.appendingPathComponent(name).path, migrations: ProjectionStore.migrations)
    }

    /// One single-member gzip file of 6 days of 1,200 users (about 7,600 events a day) (re-sent copies and late events
    /// included), with broken lines and conflicting copies spread through it.
    func bigInput() throws -> (path: String, broken: Int) {
        let sim = try Simulation(flow: try glp1, options: SimulationOptions(users: 1_200, seed: 41, days: 6, startDay: "2026-10-01"))
        var writer = CollectorWriter(seed: 41)
        writer.layout = .single
        let gz = try writer.write(sim.run().events, to: dir.appendingPathComponent("sim").path).files[0]
        var lines: [String] = []
        try LineReader(stream: ByteStream(path: gz)).forEachLine { _, bytes in
            lines.append(String(decoding: bytes, as: UTF8.self))
        }
        XCTAssertGreaterThan(lines.count, 40_000)
        var out = TextLines()
        for (i, line) in lines.enumerated() {
            out.append(line)
            if i % 2_000 == 1_999 { out.append("{\"event_id\": broken \(i)") }
            // Another body under an id seen before: a conflict.
            if i % 3_000 == 2_999 { out.append(lines[i - 100].replacingOccurrences(of: "\"ts\":\"2026-10-0", with: "\"ts\":\"2026-09-2")) }
        }
        let path = dir.appendingPathComponent("all.ndjson.gz").path
        try out.write(to: path)
        return (path, lines.count / 2_000)
    }

    /// Lines gathered, then written as one gzip member.
    struct TextLines {
        var text = ""
        mutating func append(_ line: String) { text += line + "\n" }
        func write(to path: String) throws { try GzipWriter(path: path).writeMember(text) }
    }

    /// Counts the observer's commits (`commits`), keeps the fold each one wrote, and fails
    /// the one numbered `failAt` (nil: none).
    final class Counting {
        let observer: ObservedUpdater
        var folds: [ProjectionUpdater.Counts] = []
        var commits: Int { observer.willCommits }

        init(_ inner: ProjectionUpdater, failAt: Int? = nil) {
            observer = ObservedUpdater(inner, failAt: failAt)
            // The fold of the segment before, written now (or this one's, at the input's end).
            observer.afterWillCommit = { [unowned self] _ in self.folds.append(self.observer.inner.lastCounts) }
        }
    }

    func ingest(_ path: String, into store: EventStore, observer: Counting) throws -> IngestSummary {
        try ingest(path, into: store, observer: observer.observer)
    }

    func ingest(_ path: String, into store: EventStore, observer: any IngestObserver<Database, EventStore>) throws -> IngestSummary {
        let ingestor = Ingestor(store: store, options: IngestOptions(flows: [try glp1], batchLines: 512), observer: observer)
        return try ingestor.ingest([InputSource(path: path)])
    }

    /// Everything the store holds but wall-clock times: the log, ids, runs, side tables, the
    /// ledger's counts, flows' summary and journeys.
    func dump(_ store: EventStore) throws -> [String] {
        try store.writer.read { db in
            var out: [String] = []
            func rows(_ tag: String, _ sql: String) throws {
                out += try Row.fetchAll(db, sql: sql).map { r in tag + " " + r.databaseValues.map { "\($0)" }.joined(separator: " ") }
            }
            try rows("e", "SELECT seq, user, flow, ts_us, ts_offset, input_id, line_no, hex(body), event, step FROM events ORDER BY seq")
            // The events' id hashes, in seq order (however the log was cut into blocks).
            try rows("h", "SELECT group_concat(h, '') FROM (SELECT hex(ids) AS h FROM event_blocks ORDER BY first_seq)")
            try rows("a", "SELECT id, text FROM atoms ORDER BY id")
            try rows("s", "SELECT id, hex(skeleton) FROM shapes ORDER BY id")
            try rows("d", "SELECT event_id, input_id, line_no FROM duplicates ORDER BY id")
            try rows("c", "SELECT event_id, input_id, line_no, line FROM conflicts ORDER BY id")
            try rows("q", "SELECT input_id, line_no, byte_offset, reason_code, hex(raw) FROM quarantine ORDER BY id")
            try rows("i", "SELECT path, sha256, size, lines, accepted, duplicates, conflicts, quarantined, unplanned, outcome, error, resume_line FROM inputs ORDER BY id")
            try rows("f", "SELECT flow, events, first_ts_us, last_ts_us FROM flow_summary ORDER BY flow")
            try rows("j", "SELECT flow, user_id, last_us, definition, hex(data) FROM journeys ORDER BY flow, user_id")
            return out
        }
    }

    /// User runs are stored in pieces that depend on when they were written: compared as
    /// each user's and flow's events and last time.
    func pairs(_ store: EventStore) throws -> [String] {
        try store.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT user, flow, sum(events), max(last_ts_us) FROM user_runs GROUP BY user, flow ORDER BY user, flow
                """).map { r in "r " + r.databaseValues.map { "\($0)" }.joined(separator: " ") }
        }
    }

    func testAnInputPastTheHeldEventsIsCommittedInSegmentsToTheSameStore() throws {
        let (path, broken) = try bigInput()
        let reference = try store("one.sqlite")
        let whole = try ingest(path, into: reference, observer: Counting(ProjectionUpdater(definitions: [try glp1])))
        XCTAssertEqual(whole.quarantined, broken)
        XCTAssertGreaterThan(whole.conflicts, 5)
        XCTAssertGreaterThan(whole.duplicates, 100)

        // Room for 5,000 events: each day fills half of it (a segment a day), and past it
        // some of the day's users are let go and folded from the log.
        let segmented = try store("segments.sqlite")
        let updater = ProjectionUpdater(definitions: [try glp1], bufferLimit: 5_000)
        let counting = Counting(updater)
        let summary = try ingest(path, into: segmented, observer: counting)
        XCTAssertGreaterThanOrEqual(counting.commits, 6)
        XCTAssertEqual(summary.lines, whole.lines)
        XCTAssertEqual(summary.accepted, whole.accepted)
        XCTAssertEqual(summary.duplicates, whole.duplicates)
        XCTAssertEqual(summary.conflicts, whole.conflicts)
        XCTAssertEqual(summary.quarantinedBy, whole.quarantinedBy)
        XCTAssertEqual(try dump(segmented), try dump(reference))
        // Users who span days went on from the stored fold; those let go past the room, or with
        // an event that arrived a day late, were folded again from the log.
        XCTAssertGreaterThan(counting.folds.map(\.resumed).reduce(0, +), 10)
        XCTAssertGreaterThan(counting.folds.map(\.fromLog).reduce(0, +), 100)
        let watermark = try segmented.writer.read { db in try ProjectionStore.watermark(in: db) }
        XCTAssertEqual(watermark, try segmented.writer.read { db in try EventStore.lastSeq(in: db) })
        XCTAssertEqual(try pairs(segmented), try pairs(reference))
    }

    /// The one member is read while it is checked, past several segments' worth of events:
    /// damaged in its data or in its CRC, none of it is stored (no line, no journey, no
    /// segment committed); the intact file ingested after it gives the store one run of the
    /// intact file gives.
    func testADamagedSingleMemberReadWhileCheckedStoresNothing() throws {
        let path = try bigInput().path
        let reference = try store("one.sqlite")
        _ = try ingest(path, into: reference, observer: Counting(ProjectionUpdater(definitions: [try glp1], bufferLimit: 5_000)))
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        for (name, position, reason) in [("data", bytes.count / 2, "gzip member 1"), ("crc", bytes.count - 6, "incorrect data check in gzip member 1")] {
            var damaged = bytes
            damaged[position] ^= 0x10
            let bad = dir.appendingPathComponent("bad-\(name).ndjson.gz").path
            try Data(damaged).write(to: URL(fileURLWithPath: bad))
            let st = try store("damaged-\(name).sqlite")
            let counting = Counting(ProjectionUpdater(definitions: [try glp1], bufferLimit: 5_000))
            let failed = try ingest(bad, into: st, observer: counting)
            XCTAssertEqual(failed.failures.map(\.kind), [.corrupt], name)
            XCTAssertTrue(failed.failures.first?.message.contains(reason) == true, "\(name): \(failed.failures)")
            XCTAssertEqual([failed.lines, failed.accepted], [0, 0], name)
            XCTAssertLessThanOrEqual(counting.commits, 1, name)
            let held = try st.writer.read { db in
                try ["events", "journeys", "user_runs"].map { try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0)") ?? -1 }
            }
            XCTAssertEqual(held, [0, 0, 0], name)
            _ = try ingest(path, into: st, observer: Counting(ProjectionUpdater(definitions: [try glp1], bufferLimit: 5_000)))
            // All but the ledger and the input ids (the damaged input is the store's first).
            let kept = ["h ", "a ", "s ", "f ", "j "]
            XCTAssertEqual(try dump(st).filter { r in kept.contains { r.hasPrefix($0) } },
                           try dump(reference).filter { r in kept.contains { r.hasPrefix($0) } }, name)
            XCTAssertEqual(try pairs(st), try pairs(reference), name)
        }
    }

    func testAnIngestStoppedBetweenSegmentsIsResumedAfterTheLastCommittedLine() throws {
        let path = try bigInput().path
        let reference = try store("one.sqlite")
        let whole = try ingest(path, into: reference, observer: Counting(ProjectionUpdater(definitions: [try glp1])))

        let st = try store("stopped.sqlite")
        // Room for 12,000 events: a segment a day, none let go; stopped in the third.
        XCTAssertThrowsError(try ingest(path, into: st, observer: Counting(ProjectionUpdater(definitions: [try glp1], bufferLimit: 12_000),
                                                                             failAt: 3)))
        // Two days are in; the ledger says where the next ingest goes on.
        let (line, outcome, error) = try st.writer.read { db -> (Int, String, String) in
            let row = try XCTUnwrap(try Row.fetchOne(db, sql: "SELECT resume_line, outcome, error, lines FROM inputs"))
            XCTAssertEqual(row[0] as Int?, row[3] as Int?)
            return (row[0], row[1], row[2])
        }
        XCTAssertEqual(outcome, "partial")
        XCTAssertEqual(error, "unfinished: the next ingest of this content goes on after line \(line)")
        XCTAssertGreaterThan(line, whole.lines / 4)
        XCTAssertLessThan(line, whole.lines / 2)
        let stored = try st.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM events") ?? 0 }
        XCTAssertGreaterThan(stored, 0)

        // Resumed with the default limit (one segment for the rest): the lines after it only.
        let resumed = try ingest(path, into: st, observer: Counting(ProjectionUpdater(definitions: [try glp1])))
        XCTAssertEqual(resumed.skipped.count, 0)
        XCTAssertEqual(resumed.lines, whole.lines - line)
        XCTAssertEqual(resumed.resumed, [IngestSummary.Resumed(path: path, afterLine: line)])
        XCTAssertTrue(resumed.text(store: "s").contains("resumed \(path) after line "), resumed.text(store: "s"))
        XCTAssertEqual(try dump(st), try dump(reference))
        XCTAssertEqual(try pairs(st), try pairs(reference))
        // Done: a third run skips it.
        let again = try ingest(path, into: st, observer: Counting(ProjectionUpdater(definitions: [try glp1])))
        XCTAssertEqual(again.skipped.count, 1)
        XCTAssertEqual(again.lines, 0)
    }
}
