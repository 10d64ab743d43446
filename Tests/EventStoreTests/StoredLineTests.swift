import XCTest
import GRDB
import FunnelModel
import LogFiles
import StoreCore
import LineParsing
@testable import EventStore

/// The compact log gives back every line byte for byte, and deduplication finds an event's
/// original even when another event id holds its hash slot.
final class StoredLineTests: XCTestCase {
    var dir: URL!
    override func setUp() { dir = tempDir() }

    func ingest(_ store: EventStore, _ paths: [String]) throws -> IngestSummary {
        try Ingestor(store: store, options: IngestOptions(now: fixedClock(1_000))).ingest(try InputSource.discover(paths))
    }

    /// The atom ids of `texts`, added when missing.
    func atoms(_ texts: [String], in db: Database) throws -> [Int64] {
        try texts.map { text in
            try db.execute(sql: "INSERT OR IGNORE INTO atoms (text) VALUES (?)", arguments: [text])
            return try Int64.fetchOne(db, sql: "SELECT id FROM atoms WHERE text = ?", arguments: [text]) ?? 0
        }
    }

    /// Plants one event of user u-1 in glp1 (`onboarding.step_viewed`) straight into the log,
    /// as an ingest would have stored it: its input, its block with `body` as its stored body,
    /// its id in the index and its user run.
    func plant(body: [UInt8], idHash: Int64, step: String?, time: Timestamp, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO inputs (path, sha256, size, lines, accepted, duplicates, conflicts, quarantined, unplanned,
                outcome, error, started_us, finished_us) VALUES ('planted', 'x', 0, 1, 1, 0, 0, 0, 0, 'complete', NULL, 0, 0)
            """)
        let input = db.lastInsertedRowID
        let ids = try atoms(["u-1", "glp1", "onboarding.step_viewed"] + (step.map { [$0] } ?? []), in: db)
        let seq = try LogRows.lastSeq(in: db) + 1
        let event = EventBlock.Event(idHash: idHash, user: ids[0], flow: ids[1], event: ids[2], step: step == nil ? 0 : ids[3],
                                     ts: time.micros, offset: Int64(time.offsetSeconds), line: 1)
        var blocks = try EventBlocks(db)
        try body.withUnsafeBufferPointer { b in
            try blocks.write(firstSeq: seq, inputID: input, [event], bodies: b, ends: [b.count], doing: "planting an event")
        }
        try EventIDs.add([EventIDs.Entry(hash: idHash, seq: seq)], in: db)
        try db.execute(sql: "INSERT INTO user_runs (user, flow, first_seq, events, last_ts_us, seqs) VALUES (?, ?, ?, 1, ?, ?)",
                       arguments: [ids[0], ids[1], seq, time.micros, Data(UserRuns.encode([seq]))])
    }

    /// Every accepted line of the sample data (escapes, odd spacing, key orders, extra keys)
    /// comes back exactly as it arrived.
    func testEveryStoredLineIsTheLineThatArrived() throws {
        let store = try EventStore(path: dir.appendingPathComponent("s.sqlite").path)
        let inputs = ["glp1", "edge", "bad"].map { sampleData.appendingPathComponent($0).path }
        let summary = try ingest(store, inputs)
        XCTAssertGreaterThan(summary.accepted, 1_000)
        var arrived = Set<String>()
        for source in try InputSource.discover(inputs) {
            let reader = LineReader(stream: try ByteStream(path: source.path))
            try? reader.forEachLine { _, bytes in arrived.insert(String(decoding: bytes, as: UTF8.self)) }
        }
        let stored = try store.storedEvents()
        XCTAssertEqual(stored.count, summary.accepted)
        for e in stored { XCTAssertTrue(arrived.contains(e.recorded.line), "not an arrived line: \(e.recorded.line)") }
        // Most lines share a shape; a few keep their whole text.
        let (shapes, verbatim) = try store.writer.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM shapes") ?? 0,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM events WHERE substr(body, 1, 1) = x'00'") ?? 0)
        }
        XCTAssertLessThan(shapes, stored.count / 20)
        XCTAssertLessThan(verbatim, stored.count / 20)
    }

    /// A different event already has the id hash of an incoming event (a collision): the
    /// newcomer is stored under the same hash, its re-sent copy still finds it, and a changed
    /// body is a conflict.
    func testAnEventWhoseHashIsTakenIsStoredAndStillDeduplicated() throws {
        let store = try EventStore(path: dir.appendingPathComponent("s.sqlite").path)
        let decoy = #"{"event_id":"decoy","event":"onboarding.step_viewed","user_id":"u-1","ts":"2026-10-01T10:00:00Z","flow":"glp1","step":"signIn"}"#
        let line = #"{"event_id":"e-1","event":"onboarding.step_viewed","user_id":"u-1","ts":"2026-10-01T10:01:00Z","flow":"glp1","step":"signIn"}"#
        let changed = #"{"event_id":"e-1","event":"onboarding.step_viewed","user_id":"u-1","ts":"2026-10-01T10:02:00Z","flow":"glp1","step":"signIn"}"#
        let slot = Array("e-1".utf8).withUnsafeBufferPointer { EventIdentity.idHash($0) }
        // Plant the decoy under e-1's hash, as a hash collision would.
        try store.writer.write { db in
            try plant(body: [0] + Array(decoy.utf8), idHash: slot, step: nil, time: Timestamp(micros: 0), in: db)
        }
        let first = dir.appendingPathComponent("a.ndjson")
        try (line + "\n").write(to: first, atomically: true, encoding: .utf8)
        let again = dir.appendingPathComponent("b.ndjson")
        try (line + "\n" + changed + "\n").write(to: again, atomically: true, encoding: .utf8)
        let s1 = try ingest(store, [first.path])
        XCTAssertEqual([s1.accepted, s1.duplicates, s1.conflicts], [1, 0, 0])
        let s2 = try ingest(store, [again.path])
        XCTAssertEqual([s2.accepted, s2.duplicates, s2.conflicts], [0, 1, 1])
        let slots = try store.writer.read { db in
            var out: [(Int64, Int64)] = []
            try LogRows(db).forEach(LogRows.Selection(), doing: "reading the log") { out.append(($0.idHash, $0.line)) }
            return out
        }
        XCTAssertEqual(slots.map(\.0), [slot, slot])
        XCTAssertEqual(try store.events(user: "u-1", flow: "glp1").map(\.line), [decoy, line])
        XCTAssertEqual(try store.duplicates(ofEventIDs: ["e-1"])["e-1"]?.count, 1)
        XCTAssertEqual(try store.conflicts(ofEventIDs: ["e-1"])["e-1"]?.map(\.text), [changed])
    }
    func line(_ id: String, ts: String) -> String {
        #"{"event_id":"\#(id)","event":"onboarding.step_viewed","user_id":"u-1","ts":"\#(ts)","flow":"glp1","step":"signIn"}"#
    }

    /// A time funnel can write again from the event's time is kept as its text's form (one
    /// byte); any other (a leap second, nanoseconds) as its text. Both come back exactly.
    func testTimesComeBackExactlyWhetherKeptAsFormsOrAsText() throws {
        let store = try EventStore(path: dir.appendingPathComponent("s.sqlite").path)
        let formed = ["2026-10-01T10:00:00Z", "2026-10-01t10:00:01.5z", "2026-10-01 10:00:02.123456+05:30",
                      "2026-10-01T10:00:03-00:00", "2026-10-01T10:00:04.120-03:00"]
        let kept = ["2026-10-01T10:00:05.123456789Z", "2026-10-01T10:00:60Z"]
        let lines = (formed + kept).enumerated().map { line("e-\($0.offset)", ts: $0.element) }
        let path = dir.appendingPathComponent("a.ndjson")
        try (lines.joined(separator: "\n") + "\n").write(to: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(try ingest(store, [path.path]).accepted, lines.count)
        XCTAssertEqual(try store.storedEvents().map(\.recorded.line), lines)
        // The user's events in fold order (by time): the same lines.
        XCTAssertEqual(Set(try store.events(user: "u-1", flow: "glp1").map(\.line)), Set(lines))
        let (skeletons, bodies) = try store.writer.read { db in
            (try Data.fetchAll(db, sql: "SELECT skeleton FROM shapes"), try Data.fetchAll(db, sql: "SELECT body FROM events ORDER BY seq"))
        }
        // One shape, its id and time marked as forms. A body: the shape, the id (its form 0,
        // length, text), the name, the time, the step; a formed time is one byte, a kept one
        // 0, its length and text.
        XCTAssertEqual(skeletons.count, 1)
        XCTAssertTrue(skeletons[0].contains(LineShape.Field.formedTS.rawValue))
        XCTAssertTrue(skeletons[0].contains(LineShape.Field.formedID.rawValue))
        XCTAssertEqual(bodies.map { $0.count }, [9, 9, 9, 9, 9, 8 + 32, 8 + 22])
    }

    /// A store whose shapes keep the time as text (written before times were kept as forms)
    /// still gives its lines back, and takes new lines beside them, each read as written.
    func testAStoreOfTimeTextsStillReadsAndTakesNewLines() throws {
        let store = try EventStore(path: dir.appendingPathComponent("s.sqlite").path)
        let old = line("e-old", ts: "2026-10-01T09:00:00.250+02:00")
        let new = line("e-new", ts: "2026-10-01T09:30:00.250+02:00")
        // Plant the old line as a store of that layout held it: a skeleton with the time's
        // code (4) and a body with the time's length and text.
        try store.writer.write { db in
            let ids = try atoms(["onboarding.step_viewed", "signIn"], in: db)
            var skeleton: [UInt8] = [], body: [UInt8] = []
            var decoder = EventDecoder()
            try Array(old.utf8).withUnsafeBufferPointer { b in
                guard case .success(let env) = decoder.envelope(b) else { throw CocoaError(.coderReadCorrupt) }
                var shape = LineShape()
                shape.shape(env, lineStart: 0, lineEnd: b.count, in: b)
                skeleton = shape.skeleton
                try db.execute(sql: "INSERT INTO shapes (skeleton) VALUES (?)", arguments: [Data(skeleton)])
                func put(_ v: Int64) { Varint.append(UInt64(v), to: &body) }
                put(db.lastInsertedRowID)
                for c in shape.cuts {
                    switch c.field {
                    case .name: put(ids[0])
                    case .step: put(ids[1])
                    case .user, .flow: break
                    default: put(Int64(c.end - c.start)); body += b[c.start..<c.end]
                    }
                }
            }
            XCTAssertTrue(skeleton.contains(LineShape.Field.ts.rawValue))
            let slot = Array("e-old".utf8).withUnsafeBufferPointer { EventIdentity.idHash($0) }
            let time = try XCTUnwrap(Timestamp.parse("2026-10-01T09:00:00.250+02:00"))
            try plant(body: body, idHash: slot, step: "signIn", time: time, in: db)
        }
        let path = dir.appendingPathComponent("a.ndjson")
        try (old + "\n" + new + "\n").write(to: path, atomically: true, encoding: .utf8)
        let summary = try ingest(store, [path.path])
        XCTAssertEqual([summary.accepted, summary.duplicates, summary.conflicts], [1, 1, 0])
        XCTAssertEqual(try store.storedEvents().map(\.recorded.line), [old, new])
        XCTAssertEqual(try store.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM shapes") }, 2)
    }
}
