import XCTest
import Foundation
import GRDB
import TestSupport

/// Kills `funnel ingest` with SIGKILL in the middle of a run, runs it again, and checks that
/// the store is exactly what one uninterrupted run leaves.
final class KillResumeTests: XCTestCase {
    /// `files` files × `lines` lines with re-sent copies, conflicts and broken lines (one in
    /// 1,000).
    func makeLogs(in dir: URL, files: Int = 4, lines: Int = 50_000) throws {
        for file in 0..<files {
            var text = ""
            text.reserveCapacity(lines * 240)
            for i in 0..<lines {
                let n = file * lines + i
                if i % 1_000 == 999 { text += "{\"event_id\": broken \(n)\n"; continue }
                let id = (i % 250 == 7 && n > 300) ? n - 300 : n        // re-sent (or conflicting) copies
                let user = id % 4_000
                let step = ["signIn", "journeyStatus", "goalWeight", "plan"][id % 4]
                let props = i % 500 == 7 ? "{\"v\":\(n)}" : "{\"v\":\(id)}"
                text += "{\"event_id\":\"k-\(id)\",\"event\":\"onboarding.step_viewed\",\"user_id\":\"u-\(user)\",\"ts\":\"2026-10-0\(1 + id % 9)T\(10 + id % 12):\(10 + id % 50):00.\(100 + id % 900)Z\",\"flow\":\"glp1\",\"step\":\"\(step)\",\"properties\":\(props),\"context\":{\"app_version\":\"3.3.0\",\"platform\":\"ios\",\"flags\":{\"trackingStyleQuestion\":true}}}\n"
            }
            try text.write(to: dir.appendingPathComponent(String(format: "hour-%03d.ndjson", file)), atomically: true, encoding: .utf8)
        }
    }

    /// Everything in the store except wall-clock times.
    func dump(_ path: String) throws -> [String] {
        let db = try DatabaseQueue(path: path)
        return try db.read { db in
            var out: [String] = []
            // The log as stored: rows, their bodies, and the atoms and shapes the bodies refer to.
            out += try Row.fetchAll(db, sql: "SELECT e.seq, u.text, e.ts_us, i.path, e.line_no, hex(e.body) FROM events e JOIN atoms u ON u.id = e.user JOIN inputs i ON i.id = e.input_id ORDER BY e.seq").map { "e \($0[0] as Int64) \($0[1] as String) \($0[2] as Int64) \($0[3] as String) \($0[4] as Int) \($0[5] as String)" }
            // The events' id hashes, in seq order (however the log was cut into blocks).
            out += try Row.fetchAll(db, sql: "SELECT group_concat(h, '') FROM (SELECT hex(ids) AS h FROM event_blocks ORDER BY first_seq)").map { "h \($0[0] as String? ?? "")" }
            out += try Row.fetchAll(db, sql: "SELECT id, text FROM atoms ORDER BY id").map { "a \($0[0] as Int64) \($0[1] as String)" }
            out += try Row.fetchAll(db, sql: "SELECT id, hex(skeleton) FROM shapes ORDER BY id").map { "s \($0[0] as Int64) \($0[1] as String)" }
            out += try Row.fetchAll(db, sql: "SELECT flow, user_id, last_us, definition, hex(data) FROM journeys ORDER BY flow, user_id").map { "j \($0[0] as String) \($0[1] as String) \($0[2] as Int64) \($0[3] as String) \($0[4] as String)" }
            out += try Row.fetchAll(db, sql: "SELECT d.event_id, i.path, d.line_no FROM duplicates d JOIN inputs i ON i.id = d.input_id ORDER BY d.id").map { "d \($0[0] as String) \($0[1] as String) \($0[2] as Int)" }
            out += try Row.fetchAll(db, sql: "SELECT c.event_id, i.path, c.line_no, c.line FROM conflicts c JOIN inputs i ON i.id = c.input_id ORDER BY c.id").map { "c \($0[0] as String) \($0[1] as String) \($0[2] as Int) \($0[3] as String)" }
            out += try Row.fetchAll(db, sql: "SELECT path, line_no, byte_offset, reason_code, hex(raw) FROM quarantine ORDER BY id").map { "q \($0[0] as String) \($0[1] as Int) \($0[2] as Int64) \($0[3] as String) \($0[4] as String)" }
            out += try Row.fetchAll(db, sql: "SELECT path, sha256, size, lines, accepted, duplicates, conflicts, quarantined, outcome FROM inputs ORDER BY id").map { r in "i " + (0..<9).map { "\(r[$0] as DatabaseValue)" }.joined(separator: " ") }
            out += try Row.fetchAll(db, sql: "SELECT flow, events, first_ts_us, last_ts_us FROM flow_summary").map { "f \($0[0] as String) \($0[1] as Int) \($0[2] as Int64) \($0[3] as Int64)" }
            return out
        }
    }

    func testKilledIngestResumesToTheSameStore() throws {
        let dir = tempDir()
        let logs = dir.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        try makeLogs(in: logs)
        try assertKilledRunsResume(logs.path, in: dir)
    }

    /// 60 small files (about 300 KB each), which commit about 12 to a transaction: a kill
    /// inside a group loses the group's inputs whole, and the next run reads them again.
    func testKilledIngestOfManySmallInputsResumesToTheSameStore() throws {
        let dir = tempDir()
        let logs = dir.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        try makeLogs(in: logs, files: 60, lines: 1_000)
        let ledgers = try assertKilledRunsResume(logs.path, in: dir, lines: 60_000)
        // A kill left some inputs in and others out (a group is open nearly all the run).
        XCTAssertTrue(ledgers.contains { $0 > 0 && $0 < 60 }, "ledger rows after each kill: \(ledgers)")
    }

    /// The same logs as entries of a zip archive (deflate): an entry an ingest left
    /// unfinished goes on after its last committed line.
    func testKilledIngestOfAZipResumesToTheSameStore() throws {
        let dir = tempDir()
        let logs = dir.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        try makeLogs(in: logs)
        let zip = dir.appendingPathComponent("logs.zip")
        try Data(try ZipFixture.archive(folder: logs, prefix: "logs")).write(to: zip)
        try assertKilledRunsResume(zip.path, in: dir)
    }

    /// `funnel ingest INPUT` killed at three moments, then run again, leaves the store one
    /// uninterrupted run leaves. Returns the complete inputs in the ledger after each kill.
    @discardableResult
    func assertKilledRunsResume(_ input: String, in dir: URL, lines: Int = 200_000) throws -> [Int] {
        let binary = try funnelBinary()
        let reference = dir.appendingPathComponent("reference.sqlite").path
        let start = Date()
        let full = try runFunnel(["ingest", "--store", reference, "--format", "json", input])
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(full.status, 0, full.stderr)
        let summary = try jsonObject(full.stdout)
        XCTAssertEqual(summary["lines"] as? Int, lines)
        XCTAssertEqual(summary["quarantined"] as? Int, lines / 1_000)
        XCTAssertGreaterThan(summary["duplicates"] as? Int ?? 0, 0)
        XCTAssertGreaterThan(summary["conflicts"] as? Int ?? 0, 0)
        let expected = try dump(reference)

        let store = dir.appendingPathComponent("killed.sqlite").path
        var kills = 0
        var ledgers: [Int] = []
        for fraction in [0.15, 0.45, 0.75] {
            let p = Process()
            p.executableURL = binary
            p.arguments = ["ingest", "--store", store, input]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            Thread.sleep(forTimeInterval: elapsed * fraction)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            if p.terminationReason == .uncaughtSignal { kills += 1 }
            ledgers.append(!FileManager.default.fileExists(atPath: store) ? 0 : try DatabaseQueue(path: store).read { db in
                try db.tableExists("inputs") ? Int.fetchOne(db, sql: "SELECT count(*) FROM inputs WHERE outcome = 'complete'") ?? 0 : 0
            })
        }
        XCTAssertGreaterThan(kills, 0, "no run was killed mid-ingest (the reference run took \(elapsed) s)")
        let resumed = try runFunnel(["ingest", "--store", store, "--format", "json", input])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        let got = try dump(store)
        XCTAssertEqual(got.count, expected.count)
        XCTAssertTrue(got == expected, "the resumed store differs from an uninterrupted run: first difference \(zip(got, expected).first { $0 != $1 }.map { "\($0.0.prefix(120)) vs \($0.1.prefix(120))" } ?? "in length")")
        return ledgers
    }
}
