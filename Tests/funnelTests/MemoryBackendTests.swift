import XCTest
import Foundation
import LogFiles
import Flows
import FunnelModel
import GRDB
import Journeys
import Reports
import StoreCore
import TestSupport
import Workers

/// The proof of the store seam: the in-memory backend (`MemoryStore`, in TestSupport), which
/// implements only the core's protocols, gives what the `funnel` binary prints on a SQLite
/// store, byte for byte, for ingest, report (every format), users, explain, replay, export
/// and rebuild, on all of sample-data (the edge and bad inputs too). The memory side calls
/// the same library code the commands call; only the store behind it differs.
final class MemoryBackendTests: XCTestCase {
    static let logs = ["glp1", "baby-basics", "screentime-rewards", "shieldai", "trendy", "edge", "bad"]
    static let seedFlows = ["glp1", "baby-basics", "screentime-rewards", "shieldai", "trendy"]

    /// A scratch folder with a SQLite store `funnel ingest` filled, and the memory store
    /// the same inputs went into; the JSON summary each printed.
    struct Stores {
        var folder: URL
        var sqlite: String
        var memory: MemoryStore
        var sqliteSummary: String
        var memorySummary: IngestSummary
    }

    static let stores: Result<Stores, any Error> = Result {
        let folder = Scratch.directory("funnel-memory-backend")
        let sqlite = folder.appendingPathComponent("store.sqlite").path
        let paths = logs.map { sampleData.appendingPathComponent($0).path }
        let ingest = try runFunnel(["ingest", "--store", sqlite, "--format", "json"] + paths, directory: folder)
        let memory = MemoryStore(options: IngestOptions(strict: false, flows: Flows.builtIn, now: try ledgerClock(sqlite)))
        let summary = try memory.ingest(try InputSource.discover(paths))
        return Stores(folder: folder, sqlite: sqlite, memory: memory, sqliteSummary: ingest.stdout, memorySummary: summary)
    }

    /// A clock that tells the times the SQLite ledger holds, in order: each input's start,
    /// then its end, as the memory store asks for them; so copies arrive at the same times.
    static func ledgerClock(_ sqlite: String) throws -> @Sendable () -> Timestamp {
        let times = try ledgerTimes(sqlite)
        let next = Locked(0)
        return {
            let i = next.withLock { i in
                defer { i += 1 }
                return i
            }
            return Timestamp(micros: times[min(i, times.count - 1)])
        }
    }

    /// Each input's start and end in the SQLite ledger, in ingest order.
    static func ledgerTimes(_ sqlite: String) throws -> [Int64] {
        try DatabaseQueue(path: sqlite).read { db in
            try Row.fetchAll(db, sql: "SELECT started_us, finished_us FROM inputs ORDER BY id").flatMap { row -> [Int64] in [row[0], row[1]] }
        }
    }

    /// What `funnel ARGS` prints on the SQLite store, standard output and error.
    func cli(_ args: [String]) throws -> RunResult {
        let s = try Self.stores.get()
        return try runFunnel([args[0], "--store", s.sqlite] + args.dropFirst(), environment: ["NO_COLOR": "1"], directory: s.folder)
    }

    func now() -> Timestamp { Timestamp(micros: Int64(Date().timeIntervalSince1970 * 1_000_000)) }

    /// Asserts the binary prints `expected` on standard output for `args` (exit 0).
    func assertPrints(_ args: [String], _ expected: String, stderr: String = "", file: StaticString = #filePath, line: UInt = #line) throws {
        let got = try cli(args)
        XCTAssertEqual(got.status, 0, "\(args): \(got.stderr)", file: file, line: line)
        XCTAssertEqual(got.stderr, stderr, "\(args)", file: file, line: line)
        if got.stdout != expected {
            let diff = zip(got.stdout.split(separator: "\n"), expected.split(separator: "\n")).first { $0 != $1 }
            XCTFail("\(args): SQLite prints another output than the memory store: \(diff.map { "\($0.0)\nagainst\n\($0.1)" } ?? "lengths \(got.stdout.count), \(expected.count)")",
                    file: file, line: line)
        }
    }

    /// Asserts the binary fails with `message` for `args` (exit 2).
    func assertFails(_ args: [String], _ message: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let got = try cli(args)
        XCTAssertEqual(got.status, 2, "\(args)", file: file, line: line)
        XCTAssertEqual(got.stderr, "funnel \(args[0]): \(message)\n", file: file, line: line)
    }

    /// What `body` throws, as the CLI prints it; nil when it throws nothing.
    func thrown(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    func testIngestCountsTheSame() throws {
        let s = try Self.stores.get()
        // Every line of the JSON summary but the clock's two.
        func unclocked(_ text: String) -> [Substring] {
            text.split(separator: "\n").filter { !$0.contains("\"elapsed_seconds\"") && !$0.contains("\"events_per_second\"") }
        }
        XCTAssertEqual(unclocked(s.memorySummary.json.jsonText + "\n"), unclocked(s.sqliteSummary))
        XCTAssertGreaterThan(s.memorySummary.accepted, 10_000)
        XCTAssertGreaterThan(s.memorySummary.duplicates, 0)
        XCTAssertGreaterThan(s.memorySummary.conflicts, 0)
        XCTAssertGreaterThan(s.memorySummary.quarantined, 0)
        XCTAssertFalse(s.memorySummary.failures.isEmpty, "the bad inputs fail on both")
        XCTAssertEqual(try s.memory.inputs().flatMap { [$0.startedAt.micros, $0.finishedAt.micros] }, try Self.ledgerTimes(s.sqlite))
    }

    /// Each seed flow's report in every format (the HTML with its explanations), its
    /// warnings, and the abandoned users at the top drop-off step in every format.
    func testReportsAndUsersAreTheSame() throws {
        let s = try Self.stores.get()
        for flow in Self.seedFlows {
            try assertReportsAndUsers(flow: flow, source: s.memory.journeys)
        }
    }

    func assertReportsAndUsers(flow: String, source: any JourneySource, file: StaticString = #filePath, line: UInt = #line) throws {
        let definitions = Flows.builtIn
        let request = ReportRequest(flow: flow, by: "cohort")
        let clock = now()
        var report = try request.run(source: source, definitions: definitions, now: clock)
        let warnings = try request.warnings(for: report, source: source, definitions: definitions, now: clock)
            .map { "funnel report: warning: \(TerminalText.escapeLines($0))\n" }.joined()
        let args = ["report", "--flow", flow, "--by", "cohort", "--format"]
        try assertPrints(args + ["text"], report.text(), stderr: warnings, file: file, line: line)
        try assertPrints(args + ["json"], try report.json(), stderr: warnings, file: file, line: line)
        try assertPrints(args + ["csv"], report.csv(), stderr: warnings, file: file, line: line)
        try assertPrints(args + ["markdown"], report.markdown(), stderr: warnings, file: file, line: line)
        report.explanations = try request.explanations(of: report, source: source, definitions: definitions, now: clock)
        try assertPrints(args + ["html"], report.html(command: (["funnel"] + args + ["html"]).joined(separator: " "), generatedAt: nil),
                         stderr: warnings, file: file, line: line)
        XCTAssertTrue(report.text().contains("started"), file: file, line: line)

        let step = try XCTUnwrap(report.topDropoffs.first?.step, "\(flow) has a drop-off", file: file, line: line)
        let users = try request.users(source: source, definitions: definitions, now: clock, state: "abandoned", step: step)
        let userWarnings = try request.warnings(for: users, source: source, definitions: definitions, now: clock)
            .map { "funnel users: warning: \(TerminalText.escapeLines($0))\n" }.joined()
        XCTAssertFalse(users.users.isEmpty, "\(flow): users left at \(step)", file: file, line: line)
        let userArgs = ["users", "--flow", flow, "--state", "abandoned", "--step", step, "--format"]
        try assertPrints(userArgs + ["text"], users.text(), stderr: userWarnings, file: file, line: line)
        try assertPrints(userArgs + ["csv"], users.csv(), stderr: userWarnings, file: file, line: line)
        try assertPrints(userArgs + ["json"], try users.json(), stderr: userWarnings, file: file, line: line)
    }

    /// The explanation of each seed flow's top drop-off, in every format; a step nobody is
    /// eligible for fails with the same message.
    func testExplanationsAreTheSame() throws {
        let s = try Self.stores.get()
        let definitions = Flows.builtIn
        for flow in Self.seedFlows {
            let selection = ReportRequest(flow: flow)
            let report = try selection.run(source: s.memory.journeys, definitions: definitions, now: now())
            let top = try XCTUnwrap(report.topDropoffs.first, flow)
            let definition = try XCTUnwrap(definitions.first { $0.id == flow })
            let lane = definition.lanes.count == 1 ? nil : top.lane
            let explanation = try ExplainRequest(selection: selection, step: top.step, lane: lane)
                .run(source: s.memory.journeys, definitions: definitions, now: now())
            let args = ["explain", "--flow", flow, "--step", top.step] + (lane.map { ["--lane", $0] } ?? []) + ["--format"]
            try assertPrints(args + ["text"], explanation.text())
            try assertPrints(args + ["json"], try explanation.json())
            try assertPrints(args + ["markdown"], explanation.markdown())
        }
        let early = ReportRequest(flow: "glp1", asOf: "2026-10-01T00:00:00Z")
        let nobody = try XCTUnwrap(thrown { _ = try ExplainRequest(selection: early, step: "signIn").run(source: s.memory.journeys, definitions: definitions, now: now()) })
        try assertFails(["explain", "--flow", "glp1", "--step", "signIn", "--as-of", "2026-10-01T00:00:00Z"], nobody)
    }

    /// Replays of a user with duplicates and of one in several flows, as of the log's end
    /// and of earlier times (a flow not yet begun is noted); an unknown user and one
    /// who had begun nothing fail alike.
    func testReplaysAreTheSame() throws {
        let s = try Self.stores.get()
        var firstIn: [String: [String: Timestamp]] = [:], ids: [String: [String]] = [:]
        try s.memory.forEachEvent(flow: nil) { e in
            firstIn[e.event.userID, default: [:]][e.event.flow] = min(firstIn[e.event.userID]?[e.event.flow] ?? e.event.time, e.event.time)
            ids[e.event.userID, default: []].append(e.event.id)
        }
        let users = firstIn.keys.sorted()
        let withCopies = try XCTUnwrap(users.first { try !s.memory.duplicates(ofEventIDs: ids[$0] ?? []).isEmpty })
        // A user in several flows, begun at different times.
        let inSeveral = try XCTUnwrap(users.first { Set(firstIn[$0]?.values.map(\.micros) ?? []).count > 1 })
        let starts = try XCTUnwrap(firstIn[inSeveral]).sorted { $0.value < $1.value }
        let first = try XCTUnwrap(users.first)
        var requests = [withCopies, inSeveral, first].map { ReplayRequest(user: $0) }
        requests.append(ReplayRequest(user: inSeveral, flow: starts.last?.key))
        // As of the first flow's start: the later flows are noted and left out.
        requests.append(ReplayRequest(user: inSeveral, at: starts.first?.value))
        requests.append(ReplayRequest(user: withCopies, at: Timestamp.parse("2026-10-03T12:00:00Z"), idleSeconds: 3600))
        var shown: [Replays] = []
        for request in requests {
            var args = ["replay", "--user", request.user] + (request.flow.map { ["--flow", $0] } ?? [])
            if let at = request.at { args += ["--at", at.rfc3339(utc: true)] }
            if request.idleSeconds != Journey.defaultIdleSeconds { args += ["--idle", "1h"] }
            let replays = try request.run(log: s.memory, definitions: Flows.builtIn, now: now())
            XCTAssertFalse(replays.replays.isEmpty, request.user)
            let notes = replays.notes.map { "funnel replay: note: \($0)\n" }.joined()
            try assertPrints(args, replays.text(), stderr: notes)
            try assertPrints(args + ["--format", "json"], try replays.json(), stderr: notes)
            shown.append(replays)
        }
        XCTAssertGreaterThan(shown[1].replays.count, 1, "\(inSeveral) in several flows")
        XCTAssertEqual(shown[4].notes.count, starts.count - 1, "\(inSeveral) as of \(starts)")
        XCTAssertTrue(shown[0].text().contains("times: duplicates dropped"), "\(withCopies)'s copies are shown")
        XCTAssertTrue(try shown[0].json().contains("(ingested "), "\(withCopies)'s copies are listed")
        let unknown = try XCTUnwrap(thrown { _ = try ReplayRequest(user: "u-nobody").run(log: s.memory, definitions: Flows.builtIn, now: now()) })
        try assertFails(["replay", "--user", "u-nobody"], unknown)
        let before = ReplayRequest(user: first, at: Timestamp.parse("2020-01-01T00:00:00Z"))
        let notYet = try XCTUnwrap(thrown { _ = try before.run(log: s.memory, definitions: Flows.builtIn, now: now()) })
        try assertFails(["replay", "--user", first, "--at", "2020-01-01T00:00:00Z"], notYet)
    }

    /// The whole log, a flow's window and one user's events as NDJSON on standard output,
    /// and the whole log as gzip: the same bytes.
    func testExportsAreTheSame() throws {
        let s = try Self.stores.get()
        let user = try XCTUnwrap(try s.memory.userIDs(matching: "u-", limit: 1).first)
        let selections: [(EventSelection, [String])] = [
            (EventSelection(), []),
            (EventSelection(flow: "glp1", since: Timestamp.parse("2026-10-03T00:00:00Z"), until: Timestamp.parse("2026-10-04T00:00:00Z")),
             ["--flow", "glp1", "--since", "2026-10-03", "--until", "2026-10-04"]),
            (EventSelection(user: user), ["--user", user]),
        ]
        for (selection, args) in selections {
            let request = ExportRequest(selection: selection)
            try request.check(log: s.memory)
            let path = s.folder.appendingPathComponent("memory.ndjson").path
            let writer = try LineWriter(path: path, gzip: false)
            let count = try request.run(log: s.memory, to: writer)
            try writer.finish()
            XCTAssertGreaterThan(count, 0, "\(args)")
            try assertPrints(["export"] + args, try String(contentsOfFile: path, encoding: .utf8))
        }
        let gz = s.folder.appendingPathComponent("memory.ndjson.gz").path
        let writer = try LineWriter(path: gz, gzip: true)
        let count = try ExportRequest(selection: EventSelection()).run(log: s.memory, to: writer)
        try writer.finish()
        let cliGz = s.folder.appendingPathComponent("sqlite.ndjson.gz").path
        try assertPrints(["export", "--output", cliGz], "exported \(count) events to \(cliGz)\n")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: cliGz)), try Data(contentsOf: URL(fileURLWithPath: gz)))
        XCTAssertGreaterThan(count, 10_000)
        // A flow or user the store does not have: the same message.
        for (selection, args) in [(EventSelection(flow: "nope"), ["--flow", "nope"]), (EventSelection(user: "u-nobody"), ["--user", "u-nobody"])] {
            let message = try XCTUnwrap(thrown { try ExportRequest(selection: selection).check(log: s.memory) }, "\(args)")
            try assertFails(["export"] + args, message)
        }
    }

    /// `funnel rebuild` folds as many journeys as the memory store folds from its log, and
    /// the reports and users after it are the same.
    func testRebuildFoldsTheSameJourneys() throws {
        let s = try Self.stores.get()
        let rebuilt = try s.memory.rebuild(definitions: Flows.builtIn)
        XCTAssertGreaterThan(rebuilt, 300)
        let got = try cli(["rebuild"])
        XCTAssertEqual(got.status, 0, got.stderr)
        XCTAssertTrue(got.stdout.hasPrefix("rebuilt \(rebuilt) journeys from the log in "), got.stdout)
        for flow in Self.seedFlows {
            try assertReportsAndUsers(flow: flow, source: s.memory.journeys)
        }
    }
}
