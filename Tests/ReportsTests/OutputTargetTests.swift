import XCTest
import EventStore
import FunnelModel
import TestSupport
import StoreCore
@testable import Reports

/// Which files an output may replace (docs/security.md): compared by what they are, not by
/// how they are named.
final class OutputTargetTests: XCTestCase {
    func refusal(_ target: OutputTarget, store: String? = nil, reads: [String] = [], ledger: [LedgerEntry]? = nil) -> String? {
        do {
            try target.check(store: store, reads: reads)
            if let ledger { try target.check(ledger: ledger) }
            return nil
        } catch {
            return "\(error)"
        }
    }

    func testTheStoreAndItsFilesByIdentity() throws {
        let dir = Scratch.directory("output-target")
        let store = dir.appendingPathComponent("v.sqlite").path
        try Data("SQLite format 3\0rest".utf8).write(to: URL(fileURLWithPath: store))
        let other = dir.path + "/../" + dir.lastPathComponent + "/./v.sqlite"
        XCTAssertEqual(refusal(OutputTarget(path: other), store: store),
                       "refusing to write --output \(other): it is the store; nothing was written (choose another file)")
        let link = dir.appendingPathComponent("out.txt").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: store)
        XCTAssertEqual(refusal(OutputTarget(path: link), store: store),
                       "refusing to write --output \(link): it is the store; nothing was written (choose another file)")
        // A store not created yet, named two ways.
        XCTAssertNotNil(refusal(OutputTarget(path: dir.path + "/./new.sqlite"), store: dir.appendingPathComponent("new.sqlite").path))
        XCTAssertEqual(refusal(OutputTarget(path: store + "-wal"), store: store),
                       "refusing to write --output \(store)-wal: it is the store's wal file (\(store)-wal); nothing was written (choose another file)")
        XCTAssertNil(refusal(OutputTarget(path: dir.appendingPathComponent("report.txt").path), store: store))
        XCTAssertEqual(refusal(OutputTarget(path: dir.path + "/missing/r.html"), store: store),
                       "refusing to write --output \(dir.path)/missing/r.html: its folder \(dir.path)/missing does not exist; nothing was written (choose another file)")
        XCTAssertEqual(refusal(OutputTarget(path: dir.path), store: store),
                       "refusing to write --output \(dir.path): it is a folder; nothing was written (choose another file)")
    }

    func testSQLiteDatabasesAndInputs() throws {
        let dir = Scratch.directory("output-target")
        let db = dir.appendingPathComponent("notes.txt").path
        try Data("SQLite format 3\0".utf8 + Data(count: 100)).write(to: URL(fileURLWithPath: db))
        XCTAssertEqual(refusal(OutputTarget(path: db)),
                       "refusing to write --output \(db): it is a SQLite database; nothing was written (choose another file)")
        let almost = dir.appendingPathComponent("almost.txt").path
        try Data("SQLite format 3 but text".utf8).write(to: URL(fileURLWithPath: almost))
        XCTAssertNil(refusal(OutputTarget(path: almost)))
        XCTAssertEqual(refusal(OutputTarget(path: almost, option: "--out"), reads: [dir.path + "/../" + dir.lastPathComponent + "/almost.txt"]),
                       "refusing to write --out \(almost): the command reads it (as \(dir.path)/../\(dir.lastPathComponent)/almost.txt); nothing was written (choose another file)")
    }

    func testIngestedLogsByPathOrContent() throws {
        let dir = Scratch.directory("output-target")
        let log = dir.appendingPathComponent("events.ndjson").path
        let body = Data("{\"event_id\":\"a\"}\n".utf8)
        try body.write(to: URL(fileURLWithPath: log))
        let hash = try InputContent.hash(path: log)
        let entry = LedgerEntry(id: 1, path: log, sha256: hash.sha256, size: hash.size, lines: 1, accepted: 1, duplicates: 0,
                                conflicts: 0, quarantined: 0, unplanned: 0, outcome: .complete, error: nil,
                                startedAt: Timestamp(micros: 0), finishedAt: Timestamp(micros: 0))
        XCTAssertEqual(refusal(OutputTarget(path: log), ledger: [entry]),
                       "refusing to write --output \(log): the store has ingested it (as \(log)); nothing was written (choose another file)")
        let copy = dir.appendingPathComponent("copy.json").path
        try body.write(to: URL(fileURLWithPath: copy))
        XCTAssertEqual(refusal(OutputTarget(path: copy), ledger: [entry]),
                       "refusing to write --output \(copy): the store has ingested a log with the same bytes (\(log)); nothing was written (choose another file)")
        // Other bytes of the same size, and a file that does not exist yet, may be written.
        try Data("{\"event_id\":\"b\"}\n".utf8).write(to: URL(fileURLWithPath: copy))
        XCTAssertNil(refusal(OutputTarget(path: copy), ledger: [entry]))
        XCTAssertNil(refusal(OutputTarget(path: dir.appendingPathComponent("new.json").path), ledger: [entry]))
    }

    func testFormatByExtension() {
        XCTAssertEqual(OutputTarget(path: "out/r.HTML").formatByExtension, "html")
        XCTAssertEqual(OutputTarget(path: "r.htm").formatByExtension, "html")
        XCTAssertEqual(OutputTarget(path: "r.json").formatByExtension, "json")
        XCTAssertEqual(OutputTarget(path: "r.csv").formatByExtension, "csv")
        XCTAssertEqual(OutputTarget(path: "r.md").formatByExtension, "markdown")
        XCTAssertEqual(OutputTarget(path: "r.txt").formatByExtension, "text")
        XCTAssertNil(OutputTarget(path: "r.out").formatByExtension)
        XCTAssertNil(OutputTarget(path: "report").formatByExtension)
        XCTAssertNil(OutputTarget(path: "dir.json/.json").formatByExtension)
    }
}
