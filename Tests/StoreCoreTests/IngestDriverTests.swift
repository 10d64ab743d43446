import XCTest
import Foundation
import LogFiles
import StoreCore
import TestSupport

/// What the one ingest driver tells a store of the run before it reads an input.
final class IngestDriverTests: XCTestCase {
    /// Each input's plan says how many bytes the inputs after it hold (`bytesAfter`): what a
    /// store sizes its id filter for once. An input already ingested, or one that cannot be
    /// read, still counts in the inputs before it.
    func testEachPlanSaysTheBytesOfTheInputsAfterIt() throws {
        let dir = Scratch.directory("driver-plans")
        func line(_ i: Int) -> String {
            #"{"event_id":"p-\#(i)","event":"onboarding.started","user_id":"u-\#(i)","ts":"2026-10-01T10:00:00Z","flow":"glp1"}"#
        }
        func file(_ name: String, _ ids: Range<Int>) throws -> String {
            try Scratch.file(Array((ids.map(line).joined(separator: "\n") + "\n").utf8), named: name, in: dir)
        }
        let paths = [try file("a.ndjson", 0..<3), try file("b.ndjson", 3..<10), try file("c.ndjson", 10..<12)]
        let sizes = try paths.map { Int64(try XCTUnwrap(FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int)) }
        let missing = dir.appendingPathComponent("missing.ndjson").path
        let store = MemoryStore(options: IngestOptions())
        let first = try store.ingest(paths.map(InputSource.init(path:)))
        XCTAssertEqual(first.accepted, 12)
        XCTAssertEqual(store.plannedBytesAfter, [sizes[1] + sizes[2], sizes[2], 0])
        // Again, with an input that is not there second: it adds nothing and gets no plan.
        let again = try store.ingest([paths[2], missing, paths[0]].map(InputSource.init(path:)))
        XCTAssertEqual(again.skipped.count, 2)
        XCTAssertEqual(Array(store.plannedBytesAfter.dropFirst(3)), [sizes[0], 0])
    }

    /// The size an input is known by before it is read: a file's, a zip entry's unzipped one;
    /// none for standard input or a file that is not there.
    func testAnInputsExpectedSize() throws {
        let dir = Scratch.directory("expected-size")
        let bytes = Array(String(repeating: "{\"a\":1}\n", count: 100).utf8)
        let path = try Scratch.file(bytes, named: "day.ndjson", in: dir)
        XCTAssertEqual(InputSource(path: path).expectedSize, Int64(bytes.count))
        let archive = try Scratch.file(ZipFixture.archive([ZipFixture.Entry("day.ndjson", bytes)]).bytes, named: "days.zip", in: dir)
        let entries = try InputSource.discover([archive])
        XCTAssertEqual(entries.count, 1)
        XCTAssertEqual(entries.first?.expectedSize, Int64(bytes.count))
        XCTAssertEqual(InputSource(path: "-").expectedSize, 0)
        XCTAssertEqual(InputSource(path: dir.appendingPathComponent("none.ndjson").path).expectedSize, 0)
    }
}
