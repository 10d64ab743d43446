import XCTest
import FunnelModel
import LogFiles
import Flows
import TestSupport
import StoreCore
import LogSources
@testable import EventStore
@testable import ClickHouseStore

/// Ingest into ClickHouse (one server and two shards, real servers) against ingest into
/// SQLite: the same inputs give the same summary and the same visible rows, however the
/// ingest was interrupted before.
final class ClickHouseIngestorTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let sampleData = root.appendingPathComponent("sample-data")

    func running() throws -> ClickHouseServers.Running {
        if let reason = ClickHouseServers.unavailable {
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(reason) }
            throw XCTSkip(reason)
        }
        return try ClickHouseServers.shared()
    }

    func options() throws -> IngestOptions {
        IngestOptions(flows: try FlowCatalog().all, now: { Timestamp(micros: 1_000) })
    }

    func sample(_ parts: String...) -> [String] { parts.map { Self.sampleData.appendingPathComponent($0).path } }

    /// A new SQLite store with `paths` ingested, and the summary (its time left out).
    func sqlite(_ paths: [String]) throws -> (EventStore, IngestSummary) {
        let store = try EventStore(path: Scratch.directory("ch-ingest").appendingPathComponent("s.sqlite").path)
        var summary = try Ingestor(store: store, options: try options()).ingest(try InputSource.discover(paths))
        summary.elapsedSeconds = 0
        return (store, summary)
    }

    func ingest(_ store: ClickHouseStore, _ paths: [String], chunkRows: Int? = nil, parallel: Bool = true,
                newShapes: Int? = nil) throws -> IngestSummary {
        var options = try options()
        options.parallel = parallel
        let ingestor = ClickHouseIngestor(store: store, options: options)
        if let chunkRows { ingestor.chunkRows = chunkRows }
        if let newShapes { ingestor.newShapesPerInput = newShapes }
        var summary = try ingestor.ingest(try InputSource.discover(paths))
        XCTAssertTrue(summary.isBalanced)
        summary.elapsedSeconds = 0
        return summary
    }

    /// The visible rows of both stores are the same, row for row.
    func assertSameRows(_ sqlite: EventStore, _ clickhouse: ClickHouseStore, file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = try VisibleRows(sqlite: sqlite)
        let got = try VisibleRows(clickhouse: clickhouse)
        XCTAssertEqual(got.events.count, expected.events.count, "events", file: file, line: line)
        if let i = zip(got.events, expected.events).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            XCTFail("event \(i): \(got.events[i]) against SQLite's \(expected.events[i])", file: file, line: line)
        }
        XCTAssertEqual(got.duplicates, expected.duplicates, "duplicates", file: file, line: line)
        XCTAssertEqual(got.conflicts, expected.conflicts, "conflicts", file: file, line: line)
        XCTAssertEqual(got.quarantine, expected.quarantine, "quarantine", file: file, line: line)
        XCTAssertEqual(got.inputs, expected.inputs, "ledger", file: file, line: line)
        XCTAssertEqual(got.flows, expected.flows, "flows", file: file, line: line)
    }

    /// Every seed flow's sample data, the bad samples and the copies: the same summary and
    /// rows as SQLite; a second ingest skips every input as SQLite does.
    func sampleDataAsSQLite(_ address: String) throws -> (ClickHouseStore, EventStore) {
        let paths = [Self.sampleData.path]
        let (sqliteStore, expected) = try sqlite(paths)
        // The sample holds copies, a conflict, bad lines and partial gzip inputs.
        XCTAssertEqual(expected.files, 43)
        XCTAssertEqual(expected.duplicates, 264)
        XCTAssertEqual(expected.conflicts, 1)
        XCTAssertEqual(expected.quarantined, 41)
        XCTAssertEqual(expected.failures.map(\.kind), [.corrupt, .truncated])
        let store = try ClickHouseStore(location: try ClickHouseLocation(address))
        let summary = try ingest(store, paths)
        XCTAssertEqual(summary, expected)
        try assertSameRows(sqliteStore, store)
        try assertLinesKeptByShape(store, whole: 0)

        let again = try ingest(store, paths)
        var expectedAgain = try Ingestor(store: sqliteStore, options: try options()).ingest(try InputSource.discover(paths))
        expectedAgain.elapsedSeconds = 0
        XCTAssertEqual(again.skipped.count, 43)
        XCTAssertEqual(again.skipped.filter { $0.previousOutcome == .partial }.count, 2)
        XCTAssertEqual(again.lines, 0)
        XCTAssertEqual(again, expectedAgain)
        try assertSameRows(sqliteStore, store)
        return (store, sqliteStore)
    }

    /// How many visible rows keep their line whole and by shape (`ClickHouseShapes`); the lines
    /// the `event_lines` view rebuilds with SQL are those funnel rebuilds, byte for byte.
    /// (`whole` nil: some by shape, however many whole.)
    func assertLinesKeptByShape(_ store: ClickHouseStore, whole expected: Int?, file: StaticString = #filePath, line: UInt = #line) throws {
        let clause = try store.snapshot().clause
        var whole = 0, shaped = 0
        try store.rows(store.coordinator, "SELECT countIf(shape = 0), countIf(shape != 0 AND line = '') FROM events WHERE \(clause)",
                       doing: "counting") { r in
            whole = Int(try r.uint64())
            shaped = Int(try r.uint64())
        }
        let rows = try VisibleRows(clickhouse: store)
        if let expected {
            XCTAssertEqual(whole, expected, "lines kept whole", file: file, line: line)
            XCTAssertEqual(shaped, rows.events.count - expected, "lines kept by shape", file: file, line: line)
        } else {
            XCTAssertEqual(whole + shaped, rows.events.count, "lines kept whole or by shape", file: file, line: line)
            XCTAssertGreaterThan(shaped, rows.events.count / 2, "lines kept by shape", file: file, line: line)
        }
        var viewed: [String] = []
        try store.rows(store.coordinator, "SELECT line FROM event_lines WHERE \(clause) ORDER BY seq", doing: "reading the view") { r in
            viewed.append(try r.string())
        }
        XCTAssertEqual(viewed, rows.events.map(\.line), "event_lines", file: file, line: line)
    }

    /// Inputs written with every line whole (as before shapes) and inputs written by shape
    /// read back as one log, on one server and on two shards: the same rows as SQLite's.
    func testLinesKeptWholeAndByShapeReadAsOneLog() throws {
        let early = sample("glp1/events-2026-10-01.ndjson.gz", "edge/duplicates.ndjson")
        let late = sample("glp1/events-2026-10-02.ndjson.gz", "glp1/events-2026-10-03.ndjson.gz")
        let (sqliteStore, _) = try sqlite(early + late)
        for address in [try running().single(ClickHouseServers.database("shapes")), try running().cluster(ClickHouseServers.database("shapes"))] {
            let store = try ClickHouseStore(location: try ClickHouseLocation(address))
            let first = try ingest(store, early, newShapes: 0)
            _ = try ingest(store, late)
            try assertSameRows(sqliteStore, store)
            try assertLinesKeptByShape(store, whole: first.accepted)
        }
    }

    /// Each vendor's lines (cut where its parser says, runs of members it does not read as
    /// properties) go by shape and come back byte for byte, as SQLite keeps them.
    func testVendorLinesAsSQLiteOnTwoShards() throws {
        for preset in ["amplitude", "mixpanel", "posthog", "rudderstack", "segment"] {
            let mapping = SourceMapping(try XCTUnwrap(SourcePresets.named(preset)))
            var options = try options()
            options.source = mapping
            var skipped = InputSource.Skipped()
            let files = try InputSource.discover([Self.sampleData.appendingPathComponent("sources/\(preset)").path],
                                                 extensions: mapping.definition.inputExtensions, skipped: &skipped)
            let sqliteStore = try EventStore(path: Scratch.directory("ch-vendor").appendingPathComponent("s.sqlite").path)
            var expected = try Ingestor(store: sqliteStore, options: options).ingest(Array(files.prefix(2)))
            expected.elapsedSeconds = 0
            XCTAssertGreaterThan(expected.accepted, 30, preset)
            let store = try ClickHouseStore(location: try ClickHouseLocation(try running().cluster(ClickHouseServers.database(preset))))
            var summary = try ClickHouseIngestor(store: store, options: options).ingest(Array(files.prefix(2)))
            summary.elapsedSeconds = 0
            XCTAssertEqual(summary, expected, preset)
            try assertSameRows(sqliteStore, store)
            try assertLinesKeptByShape(store, whole: nil)
        }
    }

    func testSampleDataAsSQLiteOnOneServerWithGzipInserts() throws {
        // A loopback server gets plain bodies unless asked: this one gets them gzip-compressed.
        let (store, _) = try sampleDataAsSQLite(try running().single(ClickHouseServers.database("ingest")) + "?compress=gzip")
        XCTAssertTrue(store.coordinator.compress)
    }

    func testSampleDataAsSQLiteOnTwoShardsEachUserOnOne() throws {
        let (store, sqliteStore) = try sampleDataAsSQLite(try running().cluster(ClickHouseServers.database("ingest")))
        XCTAssertEqual(store.servers.map(\.compress), [false, false])
        let users = Set(try sqliteStore.storedEvents().map(\.recorded.event.userID))
        var perShard: [Set<String>] = []
        for server in store.servers {
            var shard = Set<String>()
            try store.rows(server, "SELECT DISTINCT user_id FROM events_shard", doing: "listing a shard's users") { r in
                shard.insert(try r.string())
            }
            perShard.append(shard)
        }
        XCTAssertEqual(perShard.count, 2)
        XCTAssertTrue(perShard.allSatisfy { $0.count > users.count / 4 }, "\(perShard.map(\.count)) of \(users.count)")
        XCTAssertTrue(perShard[0].isDisjoint(with: perShard[1]))
        XCTAssertEqual(perShard[0].union(perShard[1]), users)
        // Where the Distributed table would have put them: funnel inserts into the shards itself.
        for (i, server) in store.servers.enumerated() {
            try store.rows(server, "SELECT count() FROM events_shard WHERE cityHash64(user_id) % 2 != \(i)", doing: "checking a shard") { r in
                XCTAssertEqual(try r.uint64(), 0, server.server.description)
            }
        }
        XCTAssertEqual(try store.shards(of: Array(perShard[1]) + Array(perShard[0]), doing: "placing"),
                       Array(repeating: 1, count: perShard[1].count) + Array(repeating: 0, count: perShard[0].count))
    }

    /// Event ids written with escapes (unescaped, an id can sit outside its line's bytes):
    /// their copies, in the same chunk, the next chunk and the next input, decided as SQLite does.
    /// While it runs, an ingest is named in the store's `writers`, with the inputs it committed
    /// so far in the ledger; once it ends, it is not (a failed one neither).
    func testAnIngestSaysThatItRunsUntilItEnds() throws {
        let servers = try running()
        let store = try ClickHouseStore(location: try ClickHouseLocation(servers.single(ClickHouseServers.database("writer"))))
        var seen: [(writers: [ClickHouseStore.Writer], inputs: Int)] = []
        var lastInput = -1
        let summary = try ClickHouseIngestor(store: store, options: try options()).ingest(try InputSource.discover(sample("glp1"))) { p in
            guard p.inputIndex != lastInput else { return }
            lastInput = p.inputIndex
            seen.append(((try? store.runningWriters()) ?? [], (try? store.inputs().count) ?? -1))
        }
        XCTAssertEqual(summary.files, 9)
        XCTAssertEqual(seen.count, 9)
        for (i, s) in seen.enumerated() {
            XCTAssertEqual(s.writers.map(\.command), ["ingest"], "input \(i)")
            XCTAssertEqual(s.writers.first?.pid, Int(getpid()))
            XCTAssertEqual(s.inputs, i, "input \(i)")
        }
        XCTAssertEqual(try store.runningWriters(), [])
        // An ingest that fails (here its ledger goes missing before its first commit) ends too.
        XCTAssertThrowsError(try ClickHouseIngestor(store: store, options: try options()).ingest(try InputSource.discover(sample("trendy"))) { _ in
            try? store.coordinator.execute("RENAME TABLE inputs TO inputs_gone", doing: "hiding the ledger")
        })
        try store.coordinator.execute("RENAME TABLE inputs_gone TO inputs", doing: "restoring the ledger")
        XCTAssertEqual(try store.runningWriters(), [])
    }

    func testIdsWrittenWithEscapesAreDecidedAsSQLite() throws {
        func line(_ id: String, _ user: String, _ ts: String) -> String {
            #"{"event_id":"\#(id)","event":"onboarding.started","user_id":"\#(user)","ts":"\#(ts)","flow":"glp1","step":"signIn"}"#
        }
        let dir = Scratch.directory("ch-escaped")
        let first = dir.appendingPathComponent("a.ndjson"), second = dir.appendingPathComponent("b.ndjson")
        try [line(#"esc\u002d1"#, "u-1", "2026-10-03T08:00:00Z"), line(#"esc\u002d1"#, "u-1", "2026-10-03T08:00:00Z"),
             line("esc-1", "u-1", "2026-10-03T08:00:00Z"), line(#"q\/1"#, "u-2", "2026-10-03T09:00:00Z"),
             line(#"q\/1"#, "u-3", "2026-10-03T09:00:00Z")].joined(separator: "\n").write(to: first, atomically: true, encoding: .utf8)
        try [line("esc-1", "u-1", "2026-10-03T08:00:00Z"), line(#"q\u002f1"#, "u-2", "2026-10-03T09:00:00Z")]
            .joined(separator: "\n").write(to: second, atomically: true, encoding: .utf8)
        let paths = [first.path, second.path]
        let (sqliteStore, expected) = try sqlite(paths)
        XCTAssertEqual([expected.lines, expected.accepted, expected.duplicates + expected.conflicts], [7, 2, 5])
        for address in [try running().single(ClickHouseServers.database("escaped")), try running().cluster(ClickHouseServers.database("escaped"))] {
            let store = try ClickHouseStore(location: try ClickHouseLocation(address))
            XCTAssertEqual(try ingest(store, paths, chunkRows: 2), expected, address)
            try assertSameRows(sqliteStore, store)
        }
    }

    /// Copies (one in another key order), a conflict, bad lines and a truncated gzip, with
    /// chunks of 3 lines: a copy's first arrival sits in an earlier chunk of the same input.
    func testCopiesConflictsBadLinesAndATruncatedGzipAsSQLite() throws {
        let paths = sample("edge/duplicates.ndjson", "bad/not-json.ndjson", "bad/truncated.ndjson.gz", "bad/corrupt.ndjson.gz")
        let (sqliteStore, expected) = try sqlite(paths)
        XCTAssertEqual([expected.lines, expected.accepted, expected.duplicates, expected.conflicts, expected.quarantined],
                       [30, 15, 7, 1, 7])
        XCTAssertEqual(expected.failures.map(\.linesKept), [8, 4])
        for address in [try running().single(ClickHouseServers.database("copies")), try running().cluster(ClickHouseServers.database("copies"))] {
            let store = try ClickHouseStore(location: try ClickHouseLocation(address))
            XCTAssertEqual(try ingest(store, paths, chunkRows: 3), expected, address)
            try assertSameRows(sqliteStore, store)
            let rows = try VisibleRows(clickhouse: store)
            XCTAssertEqual(rows.conflicts["dup-0002"]?.map(\.line), [6])
            XCTAssertEqual(rows.duplicates["dup-0002"]?.map(\.line), [5])
            XCTAssertEqual(rows.inputs.map(\.outcome), [.complete, .complete, .partial, .partial])
        }
    }

    /// A gzip member that fails its CRC (a stored member of 1.9 MB with one user id's digit
    /// changed) stores nothing on ClickHouse either; the intact file then stores every line,
    /// with no conflict; data of another compressor is refused with nothing written. The same
    /// summaries and rows as SQLite, on one server and on two shards.
    func testADamagedMemberStoresNothingAsOnSQLite() throws {
        let dir = Scratch.directory("ch-damaged")
        let intact = dir.appendingPathComponent("log.ndjson.gz").path
        let bodies = (0..<3).map { m in
            (0..<(m == 1 ? 14_000 : 200)).map { n in
                #"{"event_id":"m\#(m)-\#(n)","event":"onboarding.step_viewed","user_id":"u-000\#(n % 10)","ts":"2026-10-01T10:00:00Z","flow":"glp1","step":"signIn"}"# + "\n"
            }.joined()
        }
        for (m, body) in bodies.enumerated() { try GzipWriter(path: intact, level: m == 1 ? 0 : 6, append: m > 0).writeMember(body) }
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: intact)))
        let needle = Array(#""u-0009""#.utf8)
        let at = try XCTUnwrap((200_000..<bytes.count).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) })
        bytes[at + 6] ^= 0x01
        let damaged = dir.appendingPathComponent("damaged.ndjson.gz").path
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let xz = Self.root.appendingPathComponent("Tests/Fixtures/compressed/xz-named.ndjson.gz").path
        let (sqliteStore, expected) = try sqlite([damaged, xz])
        XCTAssertEqual(expected.failures.map(\.kind), [.corrupt, .unsupported])
        XCTAssertEqual(expected.accepted, 200)
        var expectedAfter = try Ingestor(store: sqliteStore, options: try options()).ingest(try InputSource.discover([intact]))
        expectedAfter.elapsedSeconds = 0
        XCTAssertEqual([expectedAfter.accepted, expectedAfter.duplicates, expectedAfter.conflicts], [14_200, 200, 0])
        for address in [try running().single(ClickHouseServers.database("damaged")), try running().cluster(ClickHouseServers.database("damaged"))] {
            let store = try ClickHouseStore(location: try ClickHouseLocation(address))
            XCTAssertEqual(try ingest(store, [damaged, xz]), expected, address)
            XCTAssertEqual(try ingest(store, [intact]), expectedAfter, address)
            try assertSameRows(sqliteStore, store)
        }
    }

    /// A second ingest commits while the first writes: the first fails at its commit, its
    /// rows written but named by no ledger row. They stay invisible, and a re-run gives what
    /// the two ingests give one after the other.
    func testAnIngestOvertakenBeforeItsCommitLeavesNothingVisibleAndARerunCompletes() throws {
        let first = sample("glp1/events-2026-10-01.ndjson.gz")
        let second = sample("glp1/events-2026-10-02.ndjson.gz")
        let store = try ClickHouseStore(location: try ClickHouseLocation(try running().cluster(ClickHouseServers.database("overtaken"))))
        let ingestor = ClickHouseIngestor(store: store, options: try options())
        var overtaken = false
        XCTAssertThrowsError(try ingestor.ingest(try InputSource.discover(first)) { _ in
            guard !overtaken else { return }
            overtaken = true
            // Parsed on this thread: the parsing thread is the first ingest's.
            do { _ = try self.ingest(store, second, parallel: false) } catch { XCTFail("the second ingest: \(error)") }
        }) { error in
            XCTAssertTrue("\(error)".contains("another ingest committed input 1 since this one began (as input 1)"), "\(error)")
        }
        XCTAssertTrue(overtaken)
        let (afterSecond, _) = try sqlite(second)
        try assertSameRows(afterSecond, store)
        // The overtaken input's events are there, under an attempt no ledger row names.
        let stored = try VisibleRows.count("events", on: store.coordinator)
        XCTAssertGreaterThan(stored, try afterSecond.eventCount())

        let rerun = try ingest(store, first)
        XCTAssertEqual(rerun.skipped, [])
        let (both, _) = try sqlite(second + first)
        try assertSameRows(both, store)
    }

    /// A server killed while an input is written: a clear error naming it, the input
    /// uncommitted; once it is back, a re-run gives exactly the uninterrupted result.
    func testAServerKilledMidIngestFailsClearlyAndARerunCompletes() throws {
        _ = try running()
        let dir = Scratch.directory("ch-killed")
        let port = 33_000 + Int(getpid() % 400) * 3
        try Self.servers("start", dir: dir, port: port)
        defer { try? Self.servers("stop", dir: dir, port: port) }
        let store = try ClickHouseStore(location: try ClickHouseLocation("clickhouse://127.0.0.1:\(port)/killed"))
        var options = try options()
        options.batchLines = 500
        let inputs = try InputSource.discover(sample("glp1"))
        let pid = try XCTUnwrap(pid_t(try String(contentsOf: dir.appendingPathComponent("single/server.pid"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        var killed = false
        // Chunks of a batch: the second input's first chunk is written (its insert waited for
        // once the second chunk is looked up) and its second under way when it is killed.
        let ingestor = ClickHouseIngestor(store: store, options: options)
        ingestor.chunkRows = options.batchLines
        XCTAssertThrowsError(try ingestor.ingest(inputs) { p in
            guard p.inputIndex == 1, p.lines > options.batchLines, !killed else { return }
            killed = true
            kill(pid, SIGKILL)
        }) { error in
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix("clickhouse 127.0.0.1:\(port): while "), message)
            XCTAssertTrue(message.contains(inputs[1].path), message)
        }
        XCTAssertTrue(killed)
        var waited = 0
        while kill(pid, 0) == 0 && waited < 100 {
            usleep(100_000)
            waited += 1
        }
        try Self.servers("start", dir: dir, port: port)
        let written = try VisibleRows.count("events", on: store.coordinator)
        XCTAssertEqual(try VisibleRows(clickhouse: store).inputs.count, 1)
        XCTAssertGreaterThan(written, try VisibleRows(clickhouse: store).events.count, "the killed input's first rows were written")

        let rerun = try ingest(store, sample("glp1"))
        XCTAssertEqual(rerun.skipped.map(\.path), [inputs[0].path])
        let (uninterrupted, _) = try sqlite(sample("glp1"))
        try assertSameRows(uninterrupted, store)
    }

    /// Runs `scripts/clickhouse-cluster COMMAND DIR` with its single node on `port`.
    static func servers(_ command: String, dir: URL, port: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent("scripts/clickhouse-cluster").path, command, dir.path]
        process.environment = ProcessInfo.processInfo.environment.merging(["FUNNEL_CH_PORT": String(port)]) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ClickHouseError(server: nil, doing: "running scripts/clickhouse-cluster \(command)", reason: text)
        }
    }
}
