import XCTest
import TestSupport
import Foundation
import GRDB
import FunnelModel
import EventStore
import LogFiles
import Flows
import Simulator
import StoreCore
import LineParsing
@testable import Projections
@testable import Journeys

/// An ingest of several inputs folds each input's journeys after it commits, beside the next
/// input, and writes them in the next input's transaction; the watermark says which events the
/// journeys hold, and a run that stops in between leaves work the next reader or ingest does.
final class DeferredFoldTests: DayFilesTestCase {
    func store(_ name: String) throws -> EventStore {
        try EventStore(path: dir.appendingPathComponent(name).path, migrations: ProjectionStore.migrations)
    }

    /// Ingests `files`, each committed on its own unless `groupBytes` says otherwise (the
    /// deferred fold runs between commits).
    func ingest(_ files: [String], into store: EventStore, observer: (any IngestObserver<Database, EventStore>)? = nil,
                groupBytes: Int64 = 0) throws -> IngestSummary {
        let definition = try glp1
        var limits = Ingestor.Limits()
        limits.groupBytes = groupBytes
        let ingestor = Ingestor(store: store, options: IngestOptions(flows: [definition]),
                                observer: observer ?? ProjectionUpdater(definitions: [definition]), limits: limits)
        return try ingestor.ingest(files.map { InputSource(path: $0) })
    }

    func rebuilt(_ store: EventStore) throws -> [Journey] {
        try ProjectionStore.rebuild(store: store, definitions: [try glp1])
        return try journeys(store)
    }

    /// (watermark, last seq) as the store has them.
    func marks(_ store: EventStore) throws -> (Int64, Int64) {
        try store.writer.read { db in
            (try ProjectionStore.watermark(in: db), try EventStore.lastSeq(in: db))
        }
    }

    func assertSame(_ a: [Journey], _ b: [Journey], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, file: file, line: line)
        for (x, y) in zip(a, b) where x != y || x.binary() != y.binary() {
            XCTFail("journey of \(x.userID) differs:\n\(x)\n\(y)", file: file, line: line)
            return
        }
    }

    /// Many inputs in one ingest (each folded beside the next one) give the journeys of a
    /// rebuild, and the watermark ends at the last event.
    /// Held events keep each distinct name and step, context and properties once (numbered
    /// by the parser's key and by their bytes) and give every event back as it was decoded.
    func testHeldEventsKeepEachNameStepAndContextOnceAndGiveTheEventsBack() throws {
        let context = #""context":{"app_version":"3.2.1","flags":{"trackingStyleQuestion":true},"platform":"ios"}"#
        let lines = [
            #"{"event_id":"a","event":"onboarding.step_viewed","user_id":"u-1","ts":"2026-10-01T10:00:00Z","flow":"glp1","step":"goalWeight",\#(context)}"#,
            #"{"event_id":"b","event":"onboarding.step_completed","user_id":"u-1","ts":"2026-10-01T10:00:05Z","flow":"glp1","step":"goalWeight","properties":{"goalWeightKg":81.5},\#(context)}"#,
            #"{"event_id":"c","event":"onboarding.step_viewed","user_id":"u-2","ts":"2026-10-01T10:00:07+02:00","flow":"glp1","step":"goalWeight",\#(context)}"#,
            #"{"event_id":"d","event":"onboarding.step_completed","user_id":"u-2","ts":"2026-10-01T10:00:09Z","flow":"glp1","step":"goalWeight","properties":{"goalWeightKg":70},\#(context)}"#,
            #"{"event_id":"e","event":"onboarding.started","user_id":"u-3","ts":"2026-10-01T10:00:10Z","flow":"glp1","context":{"platform":"android"}}"#,
        ]
        // Each line's envelope handed over as the parser does, with the parser's key numbers
        // (one per distinct flow, step and name).
        var decoder = EventDecoder()
        var parts = EventParts()
        var held: [HeldEvent] = []
        var decoded: [Event] = []
        var keys: [String: Int32] = [:]
        for (i, line) in lines.enumerated() {
            let bytes = Array(line.utf8)
            try bytes.withUnsafeBufferPointer { b in
                guard case .success(let env) = decoder.envelope(b) else { throw CocoaError(.coderReadCorrupt) }
                let event = decoder.event(from: env, in: b)
                decoded.append(event)
                let text = "\(event.flow)|\(event.step ?? "-")|\(event.rawName)"
                let key = keys[text] ?? Int32(keys.count)
                keys[text] = key
                held.append(parts.hold(seq: Int64(i + 1), names: parts.names(ofKey: key, env, in: b), shape: -1, env, in: b))
            }
        }
        // viewed/goalWeight, completed/goalWeight and started: three names, whatever the
        // properties and the user; the two contexts and two properties objects once each
        // (number 0: none).
        XCTAssertEqual(parts.names.count, 3)
        XCTAssertEqual(held.map(\.names), [0, 1, 0, 1, 2])
        XCTAssertEqual(held.map(\.context), [1, 1, 1, 1, 2])
        XCTAssertEqual(held.map(\.properties), [0, 1, 0, 2, 0])
        XCTAssertEqual(parts.contexts.count, 3)
        XCTAssertEqual(parts.properties.count, 3)
        let table = parts.table
        let back = held.indices.map { HeldView(held: held, table: table, i: $0) }
        XCTAssertEqual(back.count, decoded.count)
        for (i, (b, e)) in zip(back, decoded).enumerated() {
            XCTAssertEqual(b.seq, Int64(i + 1))
            XCTAssertEqual(b.time, e.time)
            XCTAssertEqual(b.rawName, e.rawName)
            XCTAssertEqual(b.step, e.step)
            XCTAssertEqual(b.properties, e.properties)
            XCTAssertEqual(b.context, e.context)
            XCTAssertEqual(b.known, e.known)
        }
        XCTAssertEqual(back.map(\.known), [.stepViewed, .stepCompleted, .stepViewed, .stepCompleted, .started])
        // One number for the context the first four share, another for the last one's.
        XCTAssertEqual(Set(back.prefix(4).map(\.contextID)).count, 1)
        XCTAssertGreaterThanOrEqual(back[0].contextID, 0)
        XCTAssertNotEqual(back[4].contextID, back[0].contextID)
        XCTAssertEqual(EventParts.foldOrder(held), [0, 1, 2, 3, 4].sorted {
            (held[$0].time.micros, held[$0].seq) < (held[$1].time.micros, held[$1].seq)
        })
        XCTAssertEqual(back[3].properties["goalWeightKg"], .number("70"))
        XCTAssertEqual(back[4].context.platform, "android")
    }


    /// The parsing thread's groups find a line's journey by its user number; a user seen in a
    /// second flow gets a journey of its own, and past the buffer limit a journey's events are
    /// let go (it is folded from the log).
    func testParsedGroupsKeepOneListPerUserAndFlowByUserNumber() throws {
        // A line as the parser hands it over: its envelope, its key numbered by flow.
        func take(_ groups: ParsedGroups, _ line: Int, _ number: Int32, _ user: String, _ flow: String) throws {
            let text = #"{"event_id":"e\#(line)","event":"onboarding.step_viewed","user_id":"\#(user)","ts":"2026-10-01T10:00:0\#(line)Z","flow":"\#(flow)","step":"signIn"}"#
            var decoder = EventDecoder()
            try Array(text.utf8).withUnsafeBufferPointer { b in
                guard case .success(let env) = decoder.envelope(b) else { throw CocoaError(.coderReadCorrupt) }
                groups.take(line: line, user: number, key: flow == "glp1" ? 0 : 1, shape: -1, envelope: env, in: b)
            }
        }
        // (line, user number, user, flow): u-1 is number 0, u-2 number 1; u-1 also in "other".
        let lines: [(Int, Int32, String, String)] = [
            (1, 0, "u-1", "glp1"), (2, 1, "u-2", "glp1"), (3, 0, "u-1", "glp1"),
            (4, 0, "u-1", "other"), (5, 1, "u-2", "glp1"), (6, 0, "u-1", "other"), (7, 0, "u-1", "glp1"),
        ]
        let groups = ParsedGroups(bufferLimit: 100)
        for (line, number, user, flow) in lines { try take(groups, line, number, user, flow) }
        XCTAssertEqual(groups.order, [JourneyKey(flow: "glp1", user: "u-1"), JourneyKey(flow: "glp1", user: "u-2"),
                                      JourneyKey(flow: "other", user: "u-1")])
        XCTAssertEqual(groups.slots, [0, 1, 2])
        XCTAssertEqual(groups.lists.map { $0.map(\.seq) }, [[1, 3, 7], [2, 5], [4, 6]])

        // A limit of 3 events held: u-1 in "other" comes at the limit and is not held; u-2's
        // next event finds the limit reached and its list is let go (2 held again), so u-1's
        // last event in glp1 is held.
        let capped = ParsedGroups(bufferLimit: 3)
        for (line, number, user, flow) in lines { try take(capped, line, number, user, flow) }
        XCTAssertEqual(capped.order.count, 3)
        XCTAssertEqual(capped.slots, [0, -1, -1])
        XCTAssertEqual(capped.lists.map { $0.map(\.seq) }, [[1, 3, 7], []])
    }
    func testInputsFoldedBesideTheNextOneMatchARebuild() throws {
        var files = try dayFiles(users: 300, seed: 21, start: "2026-10-01", days: 4, into: "a")
        // Late events for users already folded, in the same run.
        files += try dayFiles(users: 80, seed: 22, start: "2026-09-28", days: 1, into: "b")
        XCTAssertGreaterThan(files.count, 3)
        let st = try store("s.sqlite")
        let summary = try ingest(files, into: st)
        XCTAssertGreaterThan(summary.accepted, 1000)
        let (watermark, last) = try marks(st)
        XCTAssertEqual(watermark, last)
        let incremental = try journeys(st)
        XCTAssertGreaterThan(incremental.count, 250)
        assertSame(incremental, try rebuilt(st))
    }

    /// An input folded for later whose next input is skipped (already ingested): the end of
    /// the ingest writes its journeys.
    func testTheEndOfAnIngestWritesWhatWasLeftForTheNextInput() throws {
        let files = try dayFiles(users: 120, seed: 51, start: "2026-10-01", days: 2, into: "a")
        XCTAssertGreaterThanOrEqual(files.count, 2)
        let st = try store("s.sqlite")
        _ = try ingest([files[0]], into: st)
        let summary = try ingest([files[1], files[0]], into: st)
        XCTAssertEqual(summary.skipped.count, 1)
        let (watermark, last) = try marks(st)
        XCTAssertEqual(watermark, last)
        let incremental = try journeys(st)
        XCTAssertGreaterThan(incremental.count, 60)
        assertSame(incremental, try rebuilt(st))
    }

    /// Forwards to a `ProjectionUpdater`, and fails the ingest in the second input's
    /// transaction, after the journeys of the first were written into it: as if the run was
    /// killed there, the first input is stored and its journeys are not.
    final class FailsSecondInput: IngestObserver {
        let inner: ProjectionUpdater
        var commits = 0
        init(_ inner: ProjectionUpdater) { self.inner = inner }
        func makeEventSink() -> any ParsedEventSink { inner.makeEventSink() }
        func betweenBatches(in db: Database) throws { try inner.betweenBatches(in: db) }
        func willCommit(_ input: CommittedInput, in db: Database) throws {
            try inner.willCommit(input, in: db)
            commits += 1
            if commits == 2 { throw StoreError(doing: "ingesting the second input", reason: "stopped by the test") }
        }
        func didCommit(_ input: CommittedInput, store: EventStore) { inner.didCommit(input, store: store) }
        func finish(_ summary: IngestSummary, store: EventStore) throws { try inner.finish(summary, store: store) }
    }

    func testJourneysLeftUnwrittenAreFoldedByTheNextReaderAndTheNextIngest() throws {
        let files = try dayFiles(users: 250, seed: 31, start: "2026-10-01", days: 3, into: "a")
        XCTAssertGreaterThan(files.count, 2)
        let definition = try glp1
        let st = try store("s.sqlite")
        XCTAssertThrowsError(try ingest(files, into: st, observer: FailsSecondInput(ProjectionUpdater(definitions: [definition]))))
        // The first input is in, its journeys are not: the watermark is still at the start.
        let (watermark, last) = try marks(st)
        XCTAssertEqual(watermark, 0)
        XCTAssertGreaterThan(last, 100)
        XCTAssertEqual(try st.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM journeys") }, 0)
        // A report folds them on the way: the same journeys as a store that only has that input.
        let reference = try store("ref.sqlite")
        _ = try ingest([files[0]], into: reference)
        let read = try journeys(st)
        XCTAssertGreaterThan(read.count, 50)
        assertSame(read, try journeys(reference))
        // The next ingest folds whatever is past the watermark, and moves it to the end.
        let again = try store("again.sqlite")
        XCTAssertThrowsError(try ingest(files, into: again, observer: FailsSecondInput(ProjectionUpdater(definitions: [definition]))))
        _ = try ingest(Array(files.dropFirst()), into: again)
        let (w2, last2) = try marks(again)
        XCTAssertEqual(w2, last2)
        let all = try journeys(again)
        assertSame(all, try rebuilt(again))
        let whole = try store("whole.sqlite")
        _ = try ingest(files, into: whole)
        assertSame(all, try journeys(whole))
    }

    /// A store made before the watermark gets one at its last event (its journeys were
    /// written with each input then).
    func testTheWatermarkMigrationStartsAtTheLastEvent() throws {
        let files = try dayFiles(users: 60, seed: 41, start: "2026-10-01", days: 1, into: "a")
        let st = try store("s.sqlite")
        _ = try ingest(files, into: st)
        try st.writer.writeWithoutTransaction { db in
            try db.execute(sql: "DROP TABLE journeys_watermark")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'projections-v2-watermark'")
        }
        let reopened = try store("s.sqlite")
        let (watermark, last) = try marks(reopened)
        XCTAssertGreaterThan(last, 0)
        XCTAssertEqual(watermark, last)
    }

    /// A store made before the facts table kept each journey's facts in its `journeys` row:
    /// the migration moves every one of them, byte for byte, and drops the column.
    func testTheFactsMigrationMovesEveryJourneysFacts() throws {
        let files = try dayFiles(users: 60, seed: 43, start: "2026-10-01", days: 2, into: "a")
        let st = try store("s.sqlite")
        _ = try ingest(files, into: st)
        let sql = "SELECT flow, user_id, last_us, hex(facts) FROM journey_facts ORDER BY flow, user_id"
        let before = try st.writer.read { db in try Row.fetchAll(db, sql: sql).map(\.description) }
        let (journeys, withFacts) = try st.writer.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM journeys") ?? 0,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM journey_facts WHERE length(facts) > 0") ?? 0)
        }
        XCTAssertGreaterThan(journeys, 40)
        XCTAssertEqual(before.count, journeys)
        XCTAssertEqual(withFacts, journeys)
        // Back to the layout before the migration.
        try st.writer.writeWithoutTransaction { db in
            try db.execute(sql: "ALTER TABLE journeys ADD COLUMN facts BLOB")
            try db.execute(sql: """
                UPDATE journeys SET facts = (SELECT f.facts FROM journey_facts f
                                             WHERE f.flow = journeys.flow AND f.user_id = journeys.user_id)
                """)
            try db.execute(sql: "DROP TABLE journey_facts")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'projections-v3-facts-table'")
        }
        let reopened = try store("s.sqlite")
        let after = try reopened.writer.read { db in try Row.fetchAll(db, sql: sql).map(\.description) }
        XCTAssertEqual(after, before)
        let columns = try reopened.writer.read { db in try db.columns(in: "journeys").map(\.name) }
        XCTAssertFalse(columns.contains("facts"))
        XCTAssertTrue(columns.contains("data"))
    }
    /// A store made before the definition index held user ids in it: the migration keys it
    /// by (flow, definition) alone, and a journey folded with another definition is still
    /// found and folded again when the flow is read.
    func testTheDefinitionIndexMigrationStillFindsJourneysOfAnotherDefinition() throws {
        let files = try dayFiles(users: 60, seed: 47, start: "2026-10-01", days: 2, into: "a")
        let st = try store("s.sqlite")
        _ = try ingest(files, into: st)
        let expected = try journeys(st)
        XCTAssertGreaterThan(expected.count, 40)
        try st.writer.writeWithoutTransaction { db in
            try db.execute(sql: "DROP INDEX journeys_definition")
            try db.execute(sql: "CREATE INDEX journeys_definition ON journeys(flow, definition, user_id)")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'projections-v5-definition-index'")
            try db.execute(sql: "UPDATE journeys SET definition = 'an older one', data = x'00' WHERE rowid % 7 = 0")
        }
        let reopened = try store("s.sqlite")
        let columns = try reopened.writer.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info('journeys_definition') ORDER BY seqno")
        }
        XCTAssertEqual(columns, ["flow", "definition"])
        let stale = try reopened.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM journeys WHERE definition = 'an older one'") ?? 0
        }
        XCTAssertGreaterThan(stale, 4)
        assertSame(try ProjectionStore.journeys(flow: "glp1", definition: try glp1, store: reopened), expected)
        let left = try reopened.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM journeys WHERE definition = 'an older one'") ?? 0
        }
        XCTAssertEqual(left, 0)
    }
}
