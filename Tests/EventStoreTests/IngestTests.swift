import XCTest
import GRDB
import FunnelModel
import LogFiles
@testable import EventStore
import TestSupport
@testable import StoreCore
import LineParsing

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let sampleData = packageRoot.appendingPathComponent("sample-data")

func tempDir() -> URL {
    Scratch.directory("funnel-store")
}

func fixedClock(_ micros: Int64) -> @Sendable () -> Timestamp { { Timestamp(micros: micros) } }

/// A new store with the glp1 sample's daily files ingested, and how many inputs and accepted
/// lines it took.
func glp1SampleStore() throws -> (store: EventStore, inputs: Int, accepted: Int) {
    let store = try EventStore(path: tempDir().appendingPathComponent("s.sqlite").path)
    let files = try InputSource.discover([sampleData.appendingPathComponent("glp1").path])
    let summary = try Ingestor(store: store, options: IngestOptions(now: fixedClock(1_000))).ingest(files)
    return (store, files.count, summary.accepted)
}

final class IngestTests: XCTestCase {
    var dir: URL!
    override func setUp() { dir = tempDir() }

    func store(_ name: String = "s.sqlite", migrations: [StoreMigration] = []) throws -> EventStore {
        try EventStore(path: dir.appendingPathComponent(name).path, migrations: migrations)
    }

    func ingest(_ store: EventStore, _ paths: [String], options: IngestOptions = IngestOptions(now: fixedClock(1_000)),
                observer: (any IngestObserver<Database, EventStore>)? = nil) throws -> IngestSummary {
        let s = try Ingestor(store: store, options: options, observer: observer).ingest(try InputSource.discover(paths))
        XCTAssertTrue(s.isBalanced, "lines \(s.lines) != accepted + duplicates + conflicts + quarantined")
        return s
    }

    var duplicatesFile: String { sampleData.appendingPathComponent("edge/duplicates.ndjson").path }

    func testDuplicatesAndConflicts() throws {
        let st = try store()
        let s = try ingest(st, [duplicatesFile])
        XCTAssertEqual([s.files, s.lines, s.accepted, s.duplicates, s.conflicts, s.quarantined], [1, 9, 5, 3, 1, 0])
        // An unknown event name is unplanned even without flow definitions.
        XCTAssertEqual(s.unplanned, 1)
        XCTAssertEqual(s.unplannedBy, [.init(flow: "glp1", step: "signIn", event: "onboarding.debug_tapped", count: 1)])
        XCTAssertFalse(s.flowsChecked)
        let rows = try st.storedEvents()
        XCTAssertEqual(rows.map { [$0.recorded.seq as DatabaseValueConvertible, $0.recorded.event.id, $0.recorded.event.userID,
                                   $0.recorded.event.name, $0.lineNumber]
            .map { $0.databaseValue } }, [
            [1, "dup-0001", "u-7", "onboarding.started", 1],
            [2, "dup-0002", "u-7", "onboarding.step_viewed", 2],
            [3, "dup-0003", "u-7", "onboarding.sign_in_succeeded", 3],
            [4, "dup-0005", "u-7", "onboarding.step_completed", 7],
            [5, "dup-0006", "u-7", "onboarding.debug_tapped", 8],
        ].map { $0.map { ($0 as? DatabaseValueConvertible)?.databaseValue ?? .null } })
        // The stored line is exactly what arrived (CR stripped, escapes kept).
        let lines = try String(contentsOfFile: duplicatesFile, encoding: .utf8).replacingOccurrences(of: "\r", with: "").split(separator: "\n")
        let stored = try st.events(user: "u-7", flow: "glp1")
        XCTAssertEqual(stored.first(where: { $0.event.id == "dup-0005" })?.line, String(lines[6]))
        XCTAssertTrue(stored.contains { $0.line.contains(#""u-\u0037""#) })
        let dups = try st.duplicates(ofEventIDs: ["dup-0001", "dup-0002", "dup-0003", "dup-0006"])
        XCTAssertEqual(dups["dup-0001"]?.map(\.line), [4])
        XCTAssertEqual(dups["dup-0002"]?.map(\.line), [5])   // same body, other key order and spacing
        XCTAssertEqual(dups["dup-0003"]?.map(\.line), [9])
        XCTAssertNil(dups["dup-0006"])
        XCTAssertEqual(dups["dup-0001"]?.first?.inputPath, duplicatesFile)
        XCTAssertEqual(dups["dup-0001"]?.first?.arrivedAt.micros, 1_000)
        let conflicts = try st.conflicts(ofEventIDs: ["dup-0002"])
        XCTAssertEqual(conflicts["dup-0002"]?.map(\.line), [6])
        XCTAssertEqual(conflicts["dup-0002"]?.first?.text, String(lines[5]))
    }

    func testFoldOrderAndReadAPI() throws {
        let st = try store()
        _ = try ingest(st, [duplicatesFile])
        let events = try st.events(user: "u-7", flow: nil)
        // Event time order, ties by arrival: dup-0006 is 08:00:30+02:00 = 06:00:30Z, first.
        XCTAssertEqual(events.map(\.event.id), ["dup-0006", "dup-0001", "dup-0002", "dup-0003", "dup-0005"])
        XCTAssertEqual(events.map(\.seq), [5, 1, 2, 3, 4])
        XCTAssertEqual(events[3].event.properties["provider"], .string("apple"))
        XCTAssertEqual(events[0].event.context.flags["trackingStyleQuestion"], .bool(true))
        XCTAssertEqual(events[0].event.time.offsetSeconds, 7200)
        var all: [String] = []
        try st.writer.read { db in try EventStore.forEachEvent(flow: "glp1", in: db) { all.append($0.event.userID + ":" + $0.event.id) } }
        XCTAssertEqual(all, ["u-7:dup-0006", "u-7:dup-0001", "u-7:dup-0002", "u-7:dup-0003", "u-7:dup-0005"])
        XCTAssertEqual(try st.flows(), ["glp1"])
        XCTAssertEqual(try st.eventCount(), 5)
        XCTAssertEqual(try st.latestEventTime(notAfter: nil), Timestamp.parse("2026-10-03T14:22:01.123+02:00"))
        XCTAssertEqual(try st.latestEventTime(notAfter: Timestamp.parse("2026-10-03T08:00:10Z")), Timestamp.parse("2026-10-03T08:00:00.500Z"))
        XCTAssertEqual(try st.userIDs(matching: "u-", limit: 5), ["u-7"])
        XCTAssertEqual(try st.userIDs(matching: "u-8", limit: 5), ["u-7"])   // edit distance 1
        XCTAssertEqual(try st.userIDs(matching: "zzzz", limit: 5), [])
    }

    func testSameContentAgainAddsNothing() throws {
        let st = try store()
        _ = try ingest(st, [duplicatesFile])
        let copy = dir.appendingPathComponent("renamed.ndjson").path
        try FileManager.default.copyItem(atPath: duplicatesFile, toPath: copy)
        let again = try ingest(st, [duplicatesFile, copy])
        XCTAssertEqual([again.lines, again.accepted, again.duplicates], [0, 0, 0])
        XCTAssertEqual(again.skipped.map(\.previousPath), [duplicatesFile, duplicatesFile])
        XCTAssertEqual(again.skipped.map(\.path), [duplicatesFile, copy])
        XCTAssertEqual(try st.inputs().count, 1)
        XCTAssertEqual(again.exitCode(strict: true), 0)
        let counts = try st.writer.read { db in try Int.fetchOne(db, sql: "SELECT (SELECT count(*) FROM events) + (SELECT count(*) FROM duplicates) + (SELECT count(*) FROM conflicts)") }
        XCTAssertEqual(counts, 9)
    }

    func testBadSamplesAreQuarantinedVerbatimAndLedgerRecordsPartialInputs() throws {
        let st = try store()
        let s = try ingest(st, [sampleData.appendingPathComponent("bad").path])
        XCTAssertEqual(s.files, 10)
        XCTAssertEqual(s.quarantined, 41)
        XCTAssertEqual(s.quarantinedBy, [.notJSON: 7, .notObject: 4, .missingField: 5, .notAString: 7, .notAnObject: 3,
                                         .badTimestamp: 8, .emptyField: 2, .invalidUTF8: 4, .lineTooLong: 1])
        // corrupt.ndjson.gz and truncated.ndjson.gz share their first member: 4 re-sent copies.
        XCTAssertEqual(s.duplicates, 4)
        XCTAssertEqual(s.conflicts, 0)
        XCTAssertEqual(s.accepted, s.lines - 41 - 4)
        XCTAssertEqual(s.failures.map { URL(fileURLWithPath: $0.path).lastPathComponent }, ["corrupt.ndjson.gz", "truncated.ndjson.gz"])
        XCTAssertEqual(s.failures.map(\.kind), [.corrupt, .truncated])
        XCTAssertEqual(s.failures.map(\.linesKept), [4, 8])
        let size = try FileManager.default.attributesOfItem(atPath: sampleData.appendingPathComponent("bad/truncated.ndjson.gz").path)[.size] as? Int64
        XCTAssertEqual(s.failures[1].offset, size)
        XCTAssertEqual(s.exitCode(strict: false), 2)
        let ledger = try st.inputs()
        XCTAssertEqual(ledger.count, 10)
        let truncated = try XCTUnwrap(ledger.first { $0.path.hasSuffix("truncated.ndjson.gz") })
        XCTAssertEqual(truncated.outcome, .partial)
        XCTAssertEqual(truncated.lines, 8)
        XCTAssertEqual(truncated.accepted, 4)
        XCTAssertEqual(truncated.duplicates, 4)
        XCTAssertEqual(truncated.size, size)
        XCTAssertTrue(truncated.error?.contains("byte \(size ?? 0): truncated gzip stream") ?? false, truncated.error ?? "")
        XCTAssertEqual(truncated.sha256.count, 64)
        XCTAssertEqual(ledger.filter { $0.outcome == .complete }.count, 8)
        let q = try st.quarantine()
        XCTAssertEqual(q.count, 41)
        let utf8 = q.filter { $0.code == .invalidUTF8 }
        let original = try Data(contentsOf: sampleData.appendingPathComponent("bad/invalid-utf8.ndjson")).split(separator: 0x0A)
        XCTAssertEqual(utf8.map(\.raw), [1, 2, 3, 4].map { Array(original[$0]) })
        XCTAssertEqual(utf8.map(\.line), [2, 3, 4, 5])
        XCTAssertEqual(utf8.first?.byteOffset, Int64(original[0].count + 1))
        let long = try XCTUnwrap(q.first { $0.code == .lineTooLong })
        XCTAssertEqual(long.raw.count, 1 << 20)
        XCTAssertEqual(long.reason, "line over 1 MiB (1048843 bytes): its first 1048576 bytes are kept")
        // Again: nothing added, partial inputs still reported.
        let again = try ingest(st, [sampleData.appendingPathComponent("bad").path])
        XCTAssertEqual(again.lines, 0)
        XCTAssertEqual(again.skipped.count, 10)
        XCTAssertEqual(again.exitCode(strict: false), 2)
    }

    func testUnplannedAgainstFlowDefinitions() throws {
        let flow = FlowDefinition(id: "glp1", title: "GLP-1", lanes: [], steps: [
            .init(id: "signIn", kind: .entry), .init(id: "journeyStatus", kind: .screen)])
        let st = try store()
        let s = try ingest(st, [duplicatesFile], options: IngestOptions(flows: [flow], now: fixedClock(0)))
        XCTAssertTrue(s.flowsChecked)
        XCTAssertEqual(s.unplanned, 1)
        let other = FlowDefinition(id: "other", title: "Other", lanes: [], steps: [.init(id: "signIn", kind: .entry)])
        let st2 = try store("t.sqlite")
        let s2 = try ingest(st2, [duplicatesFile], options: IngestOptions(flows: [other], now: fixedClock(0)))
        XCTAssertEqual(s2.unplanned, 5)
        XCTAssertEqual(try st2.inputs().first?.unplanned, 5)
        let narrow = FlowDefinition(id: "glp1", title: "GLP-1", lanes: [], steps: [.init(id: "signIn", kind: .entry)])
        let st3 = try store("u.sqlite")
        let s3 = try ingest(st3, [duplicatesFile], options: IngestOptions(flows: [narrow], now: fixedClock(0)))
        XCTAssertEqual(s3.unplannedBy.map(\.step), ["journeyStatus", "signIn"])
    }

    /// The parsed events of one input: the parsing thread appends, the writing thread reads
    /// them in `willCommit`, after the parse is done.
    final class TakenEvents: ParsedEventSink, @unchecked Sendable {
        var taken: [(line: Int, event: Event)] = []
        func take(line: Int, user: Int32, key: Int32, shape: Int32, envelope: Envelope, in bytes: UnsafeBufferPointer<UInt8>) {
            taken.append((line, EventDecoder().event(from: envelope, in: bytes)))
        }
        func forgetAll() { taken = [] }
    }

    final class Recorder: IngestObserver {
        typealias Store = EventStore
        var committed: [[Int64]] = []
        var batches = 0
        func makeEventSink() -> any ParsedEventSink { TakenEvents() }
        func betweenBatches(in db: Database) throws { batches += 1 }
        func willCommit(_ input: CommittedInput, in db: Database) throws {
            var seqs: [Int64] = []
            for (line, event) in (input.events as? TakenEvents)?.taken ?? [] {
                guard let seq = input.accepted.seq(ofLine: line) else { continue }
                seqs.append(seq)
                try db.execute(sql: "INSERT INTO seen (seq, line_no, event, user_id) VALUES (?, ?, ?, ?)",
                               arguments: [seq, line, event.rawName, event.userID])
            }
            XCTAssertEqual(seqs.first ?? .max, input.firstSeq)
            XCTAssertEqual(seqs.last ?? input.lastSeq, input.lastSeq)
            committed.append(seqs)
        }
    }

    func testObserverSeesNewEventsInsideTheTransaction() throws {
        let migration = StoreMigration(name: "test: seen") { db in
            try db.execute(sql: "CREATE TABLE seen (seq INTEGER PRIMARY KEY, line_no INTEGER, event TEXT, user_id TEXT)")
        }
        let st = try store(migrations: [migration])
        let recorder = Recorder()
        _ = try ingest(st, [duplicatesFile], options: IngestOptions(batchLines: 4, now: fixedClock(0)), observer: recorder)
        XCTAssertEqual(recorder.committed, [[1, 2, 3, 4, 5]])
        XCTAssertGreaterThan(recorder.batches, 1)
        let seen = try st.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT line_no, user_id FROM seen ORDER BY seq").map { "\($0[0] as Int) \($0[1] as String)" }
        }
        // The accepted lines: not the copies (4, 5, 9) nor the conflict (6).
        XCTAssertEqual(seen, ["1 u-7", "2 u-7", "3 u-7", "7 u-7", "8 u-7"])
        // Reopening with the same migrations is fine; they are not run twice.
        XCTAssertNoThrow(try store(migrations: [migration]))
    }

    /// The store as an `EventLogReading`: the same events as the log read through SQL.
    func testTheStoreReadsAsAnEventLog() throws {
        let st = try store()
        _ = try ingest(st, [duplicatesFile])
        let log: any EventLogReading = st
        var viaLog: [Int64] = []
        try log.forEachEvent(flow: "glp1") { viaLog.append($0.seq) }
        var viaDB: [Int64] = []
        try st.writer.read { db in try EventStore.forEachEvent(flow: "glp1", in: db) { viaDB.append($0.seq) } }
        XCTAssertEqual(viaLog.count, 5)
        XCTAssertEqual(viaLog, viaDB)
        XCTAssertEqual(try log.flows(), ["glp1"])
        XCTAssertEqual(try log.events(user: "u-7", flow: nil).map(\.seq).sorted(), [1, 2, 3, 4, 5])
        XCTAssertEqual(try log.inputs().count, 1)
    }

    /// Each user's last event on a step: the one a filter of their events in fold order
    /// finds, for every user of the GLP-1 sample on its steps, up to an as-of mid-week.
    func testLastEventsOnAStepAreTheUsersLastInFoldOrder() throws {
        let st = try store()
        _ = try ingest(st, [sampleData.appendingPathComponent("glp1").path])
        var users: [String: [RecordedEvent]] = [:]
        try st.forEachEvent(flow: "glp1") { users[$0.event.userID, default: []].append($0) }
        let bound = try XCTUnwrap(Timestamp.parse("2026-10-04T12:00:00Z"))
        var found = 0
        for step in ["signIn", "notificationsPermission", "healthKitBenefits", "completion", "nowhere"] {
            let last = try st.lastEvents(onStep: step, flow: "glp1", users: Array(users.keys) + ["nobody"], notAfter: bound)
            for (user, events) in users {
                let expected = events.last { $0.event.step == step && $0.event.time <= bound }
                XCTAssertEqual(last[user], expected, "\(user) \(step)")
            }
            XCTAssertNil(last["nobody"])
            found += last.count
        }
        XCTAssertGreaterThan(found, 300)
        XCTAssertEqual(try st.lastEvents(onStep: "signIn", flow: "trendy", users: Array(users.keys), notAfter: bound), [:])
    }

    /// Events by seq, in any order and however many (past one share of
    /// `Tuning.seqsPerReadShare` they are read in shares): the log's events of those seqs, in
    /// seq order, with their lines.
    func testEventsBySeqAreTheLogsInSeqOrder() throws {
        let st = try store()
        _ = try ingest(st, [sampleData.appendingPathComponent("glp1").path])
        var all: [RecordedEvent] = []
        try st.forEachEvent(flow: "glp1") { all.append($0) }
        all.sort { $0.seq < $1.seq }
        XCTAssertGreaterThan(all.count, 3 * Tuning.seqsPerReadShare)
        let bySeq = try st.events(seqs: all.map(\.seq).reversed())
        XCTAssertEqual(bySeq.map(\.seq), all.map(\.seq))
        XCTAssertEqual(bySeq.map(\.event), all.map(\.event))
        XCTAssertTrue(bySeq.allSatisfy { !$0.line.isEmpty })
        let few = [all[7].seq, all[3].seq]
        XCTAssertEqual(try st.events(seqs: few).map(\.seq), few.sorted())
        XCTAssertThrowsError(try st.events(seqs: all.map(\.seq) + [Int64(all.count + 1_000)]))
    }

    /// A generated multi-member gzip log: the parallel and the sequential pipelines, and any
    /// batch size, store exactly the same thing.
    func testPipelinesAgreeOnGeneratedLog() throws {
        let path = dir.appendingPathComponent("gen.ndjson.gz").path
        let w = try GzipWriter(path: path)
        var expectedDuplicates = 0
        for member in 0..<5 {
            var text = ""
            for i in 0..<2_000 {
                let n = member * 2_000 + i
                let id = n % 97 == 0 && n > 0 ? n - 1 : n
                if id != n { expectedDuplicates += 1 }
                text += #"{"event_id":"g-\#(id)","event":"onboarding.step_viewed","user_id":"u-\#(id % 300)","ts":"2026-10-0\#(1 + id % 9)T10:00:\#(10 + id % 50)Z","flow":"glp1","step":"s\#(id % 7)"}"# + "\n"
            }
            if member == 3 { text += "broken\n" }
            try w.writeMember(text)
        }
        func dump(_ st: EventStore) throws -> [String] {
            try st.storedEvents().map { "\($0.recorded.seq) \($0.recorded.event.id) \($0.lineNumber) \($0.recorded.event.time.micros) \($0.recorded.line)" }
            + st.writer.read { db in
                try Row.fetchAll(db, sql: "SELECT event_id, line_no FROM duplicates ORDER BY id").map { "d \($0[0] as String) \($0[1] as Int)" }
                + Row.fetchAll(db, sql: "SELECT line_no, byte_offset FROM quarantine").map { "q \($0[0] as Int) \($0[1] as Int64)" }
            }
        }
        var dumps: [[String]] = []
        for (i, (parallel, batch)) in [(true, 8192), (false, 8192), (true, 7), (false, 1)].enumerated() {
            let st = try store("p\(i).sqlite")
            let s = try ingest(st, [path], options: IngestOptions(parallel: parallel, batchLines: batch, now: fixedClock(0)))
            XCTAssertEqual([s.lines, s.accepted, s.duplicates, s.quarantined], [10_001, 10_000 - expectedDuplicates, expectedDuplicates, 1])
            dumps.append(try dump(st))
        }
        for d in dumps.dropFirst() { XCTAssertEqual(d, dumps[0]) }
        XCTAssertEqual(dumps[0].last?.hasPrefix("q 8001 "), true)
    }

    /// Each input is parsed ahead while the one before it is written and committed. An input
    /// read ahead and then skipped (the same content as the one before it), one whose gzip is
    /// cut short, and small batches (the read-ahead fills its queue and waits): the store ends
    /// exactly as when the inputs are read one after the other.
    func testReadingAheadStoresWhatReadingInTurnStores() throws {
        var paths: [String] = []
        for part in 0..<3 {
            let path = dir.appendingPathComponent("part\(part).ndjson.gz").path
            let w = try GzipWriter(path: path)
            var text = ""
            for i in 0..<1_500 {
                // Later parts repeat some ids of earlier ones: duplicates across inputs.
                let n = part * 1_500 + i - (i % 50 == 0 && part > 0 ? 1_500 : 0)
                text += #"{"event_id":"r-\#(n)","event":"onboarding.step_viewed","user_id":"u-\#(n % 200)","ts":"2026-10-0\#(1 + part)T10:\#(10 + n % 50):00Z","flow":"glp1","step":"s\#(n % 5)"}"# + "\n"
            }
            // Three members of 500 lines, as a collector appends batches.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
            for m in 0..<3 { try w.writeMember(lines[(m * 500)..<(m * 500 + 500)].map { $0 + "\n" }.joined()) }
            paths.append(path)
        }
        let copy = dir.appendingPathComponent("part0-again.ndjson.gz").path
        try FileManager.default.copyItem(atPath: paths[0], toPath: copy)
        // The last part cut short in its last member: its first two members are kept, the
        // input is partial.
        let cut = dir.appendingPathComponent("part3-cut.ndjson.gz").path
        let whole = try Data(contentsOf: URL(fileURLWithPath: paths[2]))
        try whole.prefix(whole.count - 100).write(to: URL(fileURLWithPath: cut))
        let inputs = [paths[0], copy, paths[1], cut, paths[2]]
        func dump(_ st: EventStore) throws -> [String] {
            try st.storedEvents().map { "\($0.recorded.seq) \($0.recorded.event.id) \($0.inputID) \($0.lineNumber)" }
            + st.writer.read { db in
                try Row.fetchAll(db, sql: "SELECT event_id, input_id, line_no FROM duplicates ORDER BY id").map { "d \($0[0] as String) \($0[1] as Int) \($0[2] as Int)" }
                + Row.fetchAll(db, sql: "SELECT event_id, input_id, line_no FROM conflicts ORDER BY id").map { "c \($0[0] as String) \($0[1] as Int) \($0[2] as Int)" }
                + Row.fetchAll(db, sql: "SELECT path, lines, accepted, duplicates, outcome FROM inputs ORDER BY id").map { "i \($0[0] as String) \($0[1] as Int) \($0[2] as Int) \($0[3] as Int) \($0[4] as String)" }
            }
        }
        var dumps: [[String]] = []
        for (i, (parallel, batch)) in [(true, 100), (false, 8192), (true, 8192)].enumerated() {
            let st = try store("r\(i).sqlite")
            let s = try ingest(st, inputs, options: IngestOptions(parallel: parallel, batchLines: batch, now: fixedClock(0)))
            XCTAssertEqual(s.skipped.map(\.path), [copy])
            XCTAssertEqual(s.failures.map(\.path), [cut])
            XCTAssertEqual(s.files, 5)
            // Part 1 repeats 30 ids of part 0 with other times (conflicts); the whole part 2
            // repeats every line the cut one kept (duplicates).
            let kept = s.failures.first?.linesKept ?? 0
            XCTAssertEqual(kept, 1_000)
            XCTAssertEqual([s.lines, s.accepted, s.duplicates, s.conflicts], [4_500 + kept, 4_470, kept, 30])
            dumps.append(try dump(st))
        }
        XCTAssertGreaterThan(dumps[0].count, 4_500)
        for d in dumps.dropFirst() { XCTAssertEqual(d, dumps[0]) }
    }

    func testSummaryJSONHasTheDocumentedKeysAndInvariant() throws {
        let st = try store()
        let s = try ingest(st, [duplicatesFile, sampleData.appendingPathComponent("bad/not-json.ndjson").path])
        guard case .object(let o) = s.json else { return XCTFail("not an object") }
        for key in ["files", "lines", "accepted", "duplicates", "conflicts", "quarantined", "unplanned", "skipped", "failures",
                    "elapsed_seconds", "events_per_second", "quarantined_by", "unplanned_by"] {
            XCTAssertNotNil(o[key], key)
        }
        func n(_ k: String) -> Int { Int(o[k]?.textValue ?? "") ?? -1 }
        XCTAssertEqual(n("lines"), 18)
        XCTAssertEqual(n("lines"), n("accepted") + n("duplicates") + n("conflicts") + n("quarantined"))
        XCTAssertEqual(n("quarantined"), 7)
        XCTAssertTrue(s.text(store: "s.sqlite").split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    func testStorePathDefaults() {
        XCTAssertEqual(EventStore.defaultPath(environment: [:]), "funnel.sqlite")
        XCTAssertEqual(EventStore.defaultPath(environment: ["FUNNEL_STORE": "/x/y.sqlite"]), "/x/y.sqlite")
    }

    func testSchemaIsWALWithTheNamedMigrations() throws {
        let st = try store()
        try st.writer.read { db in
            XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA journal_mode"), "wal")
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"),
                           ["v1: event log, ledger, duplicates, conflicts, quarantine",
                            "v2: user runs instead of a per-event user index",
                            "v3: event ids in hash ranges instead of a unique index",
                            "v4: saved id filter",
                            "v5: event and step columns, event_log view",
                            "v6: resumable inputs",
                            "v7: input sources",
                            "v8: the log in blocks of events"])
            // The log has no index: users are found through user_runs, ids through event_ids.
            let indexes = try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'event_blocks' AND sql IS NOT NULL")
            XCTAssertEqual(indexes, [])
        }
    }

    /// Ingest writes the log with SQLite's foreign key checks off (three lookups a row, and
    /// they made every multi-row INSERT keep a statement journal): every reference it writes
    /// must still hold, and the checks are back on once it is done.
    func testIngestKeepsEveryReferenceAndTurnsForeignKeysBackOn() throws {
        let st = try store()
        let s = try ingest(st, [sampleData.appendingPathComponent("glp1").path, duplicatesFile,
                                sampleData.appendingPathComponent("bad").path])
        XCTAssertGreaterThan(s.accepted, 1000)
        XCTAssertGreaterThan(s.quarantined, 0)
        try st.writer.writeWithoutTransaction { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA foreign_keys"), 1)
            XCTAssertEqual(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count, 0)
            // The check can fail: a row naming an input that is not there is reported.
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "UPDATE event_blocks SET input_id = 999999 WHERE first_seq = 1")
            XCTAssertEqual(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count, 1)
        }
    }

    /// Each input adds one run per user and flow; a user's events are read back through them.
    func testUserRunsListEachUsersEventsPerInput() throws {
        let st = try store()
        _ = try ingest(st, [sampleData.appendingPathComponent("glp1").path])
        try st.writer.read { db in
            let inputs = try Int.fetchOne(db, sql: "SELECT count(*) FROM inputs") ?? 0
            XCTAssertGreaterThan(inputs, 1)
            // Runs hold every event exactly once.
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT sum(events) FROM user_runs"),
                           try Int.fetchOne(db, sql: "SELECT count(*) FROM events"))
            // One run per (user, flow, input): the same count as grouping the log.
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM user_runs"),
                           try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT 1 FROM events GROUP BY user, flow, input_id)"))
            // A user's events through the runs are the log's rows of that user, in fold order.
            let user = try String.fetchOne(db, sql: """
                SELECT a.text FROM user_runs r JOIN atoms a ON a.id = r.user GROUP BY r.user ORDER BY count(*) DESC, a.text LIMIT 1
                """) ?? ""
            let viaRuns = try EventStore.events(user: user, flow: "glp1", in: db).map(\.seq)
            let viaScan = try Int64.fetchAll(db, sql: """
                SELECT e.seq FROM events e JOIN atoms a ON a.id = e.user WHERE a.text = ? ORDER BY e.ts_us, e.seq
                """, arguments: [user])
            XCTAssertEqual(viaRuns, viaScan)
            XCTAssertGreaterThan(viaRuns.count, 3)
            let prior = try PriorEvents(db, atoms: AtomIDs(db)).of(user: user, flow: "glp1", before: viaScan.max().map { $0 + 1 } ?? 0)
            XCTAssertEqual(prior.count, viaScan.count)
        }
    }

    /// A store written before v2 (a per-event user index, no user_runs) gets its runs built
    /// from the log when opened, and reads the same events.
    func testMigrationToUserRunsKeepsEveryUsersEvents() throws {
        let path = dir.appendingPathComponent("old.sqlite").path
        var before: [String: [Int64]] = [:]
        do {
            let st = try EventStore(path: path)
            _ = try ingest(st, [sampleData.appendingPathComponent("glp1").path, duplicatesFile])
            try st.writer.read { db in
                try EventStore.forEachEvent(flow: nil, in: db) { before[$0.event.userID + "/" + $0.event.flow, default: []].append($0.seq) }
            }
            // Turn it back into a v1 store.
            try st.writer.write { db in
                try LegacyLog.downgrade(db)
                try db.execute(sql: "DROP TABLE user_runs")
                try db.execute(sql: "CREATE INDEX events_by_user ON events(user, flow, ts_us, seq)")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v2:%'")
            }
        }
        let st = try EventStore(path: path)
        var after: [String: [Int64]] = [:]
        try st.writer.read { db in
            try EventStore.forEachEvent(flow: nil, in: db) { after[$0.event.userID + "/" + $0.event.flow, default: []].append($0.seq) }
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'events_by_user'"), 0)
        }
        XCTAssertGreaterThan(before.count, 100)
        XCTAssertEqual(after, before)
    }
}
