import XCTest
import Foundation
import LogFiles
import StoreCore
import TestSupport

/// What the one ingest driver tells a store of the run before it reads an input.
final class IngestDriverTests: XCTestCase {
    /// Each input's plan says how many lines the inputs after it may hold (`linesAfter`): what
    /// a store sizes its id filter for once. An input already ingested counts in the inputs
    /// before it; one that cannot be read adds nothing and gets no plan.
    func testEachPlanSaysTheLinesOfTheInputsAfterIt() throws {
        let dir = Scratch.directory("driver-plans")
        func line(_ i: Int) -> String {
            #"{"event_id":"p-\#(i)","event":"onboarding.started","user_id":"u-\#(i)","ts":"2026-10-01T10:00:00Z","flow":"glp1"}"#
        }
        func file(_ name: String, _ ids: Range<Int>) throws -> String {
            try Scratch.file(Array((ids.map(line).joined(separator: "\n") + "\n").utf8), named: name, in: dir)
        }
        let paths = [try file("a.ndjson", 0..<3), try file("b.ndjson", 3..<10), try file("c.ndjson", 10..<12)]
        let lines = paths.map { InputSource(path: $0).expectedLines }
        // Plain lines of about 110 bytes: the estimate is the lines' count, never fewer.
        XCTAssertEqual(lines, [3, 7, 2])
        let missing = dir.appendingPathComponent("missing.ndjson").path
        let store = MemoryStore(options: IngestOptions())
        let first = try store.ingest(paths.map(InputSource.init(path:)))
        XCTAssertEqual(first.accepted, 12)
        XCTAssertEqual(store.plannedLinesAfter, [lines[1] + lines[2], lines[2], 0])
        let again = try store.ingest([paths[2], missing, paths[0]].map(InputSource.init(path:)))
        XCTAssertEqual(again.skipped.count, 2)
        XCTAssertEqual(Array(store.plannedLinesAfter.dropFirst(3)), [lines[0], 0])
    }

    /// The lines an input is expected to hold at most, before it is read: its size (a
    /// file's, a zip entry's unzipped one) over 16 bytes a line compressed, 100 plain; none
    /// for standard input or a file that is not there.
    func testAnInputsExpectedLines() throws {
        let dir = Scratch.directory("expected-lines")
        let bytes = [UInt8](repeating: UInt8(ascii: " "), count: 3_200)
        XCTAssertEqual(InputSource(path: try Scratch.file(bytes, named: "day.ndjson", in: dir)).expectedLines, 32)
        XCTAssertEqual(InputSource(path: try Scratch.file(bytes, named: "day.ndjson.gz", in: dir)).expectedLines, 200)
        XCTAssertEqual(InputSource(path: try Scratch.file(bytes, named: "day.jsonl.zst", in: dir)).expectedLines, 200)
        let archive = try Scratch.file(ZipFixture.archive([ZipFixture.Entry("a.ndjson", bytes), ZipFixture.Entry("b.ndjson.gz", bytes)]).bytes,
                                       named: "days.zip", in: dir)
        XCTAssertEqual(try InputSource.discover([archive]).map(\.expectedLines), [32, 200])
        XCTAssertEqual(InputSource(path: "-").expectedLines, 0)
        XCTAssertEqual(InputSource(path: dir.appendingPathComponent("none.ndjson").path).expectedLines, 0)
    }
}
