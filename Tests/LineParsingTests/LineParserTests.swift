import XCTest
import Foundation
import FunnelModel
import LogFiles
@testable import LineParsing
import TestSupport

/// A file whose first member is streamed is parsed while that member is checked on another
/// thread: its batches are held until the check passes; when it does not, nothing was handed
/// on, the sink forgets what it took, and the parse ends as one that checked first would.
final class LineParserTests: XCTestCase {
    /// Records what a parse hands its event sink, and whether it was told to forget it.
    final class TakenLines: ParsedEventSink, @unchecked Sendable {
        var lines: [Int] = []
        var forgotten = 0
        func take(line: Int, user: Int32, key: Int32, shape: Int32, envelope: Envelope, in bytes: UnsafeBufferPointer<UInt8>) {
            lines.append(line)
        }
        func forgetAll() {
            lines = []
            forgotten += 1
        }
    }

    /// What one parse handed on.
    struct Parsed {
        var batches = 0
        var lines: [Int] = []
        var bytes: [UInt8] = []
        var end: ParseEnd
        var taken: TakenLines
    }

    func parse(_ path: String, aheadOfCheck: Int) throws -> Parsed {
        let taken = TakenLines()
        var batches = 0
        var lines: [Int] = []
        var bytes: [UInt8] = []
        let end = try LineParser.run(input: InputSource(path: path), batchLines: 500, batchBytes: 1 << 16,
                                     eventSink: taken, bytesAheadOfCheck: aheadOfCheck) { batch in
            batches += 1
            for line in batch.lines {
                lines.append(line.number)
                bytes.append(contentsOf: batch.bytes[line.start..<(line.start + line.count)])
                bytes.append(0x0A)
            }
            return true
        }
        return Parsed(batches: batches, lines: lines, bytes: bytes, end: end, taken: taken)
    }

    /// A stored (level 0) member of 14,000 lines, about 1.2 MB: over the 1 MiB that is
    /// inflated whole, so it is streamed; then a small deflated one.
    func twoMembers(in dir: URL) throws -> (path: String, body: String, firstEnd: Int) {
        let path = dir.appendingPathComponent("log.ndjson.gz").path
        let events = (0..<14_300).map {
            #"{"event_id":"e-\#($0)","event":"onboarding.step_viewed","user_id":"u-\#($0 % 97)","ts":"2026-10-01T10:00:00Z","flow":"glp1","step":"s\#($0 % 7)"}"# + "\n"
        }
        let first = events[..<14_000].joined(), second = events[14_000...].joined()
        XCTAssertGreaterThan(first.utf8.count, 1 << 20)
        try GzipWriter(path: path, level: 0).writeMember(first)
        let firstEnd = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        try GzipWriter(path: path, level: 6, append: true).writeMember(second)
        return (path, first + second, firstEnd)
    }

    func testALargeFirstMemberIsHandedOnWholeOnceItsCheckPasses() throws {
        let dir = Scratch.directory("line-parser")
        let (path, body, _) = try twoMembers(in: dir)
        // Held to the end of the input, and handed on a few batches at a time.
        for ahead in [64 << 20, 1 << 16] {
            let parsed = try parse(path, aheadOfCheck: ahead)
            XCTAssertNil(parsed.end.error)
            XCTAssertEqual(parsed.end.lines, 14_300)
            XCTAssertEqual(parsed.lines, Array(1...14_300))
            XCTAssertEqual(parsed.bytes, Array(body.utf8))
            XCTAssertEqual(parsed.taken.lines, Array(1...14_300))
            XCTAssertEqual(parsed.taken.forgotten, 0)
        }
    }

    /// Bytes all through the first member, its header and its trailer, each damaged in
    /// turn: the parse ends with the fault a stream that checks first reports, and nothing
    /// was handed on or kept by the sink; damage no check covers reads the same lines.
    func testAFirstMemberThatFailsItsCheckHandsNothingOn() throws {
        let dir = Scratch.directory("line-parser")
        let (path, body, firstEnd) = try twoMembers(in: dir)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var positions = Set(2..<10).union((firstEnd - 8)..<firstEnd)
        positions.formUnion(stride(from: 10, to: firstEnd - 8, by: firstEnd / 12))
        let bad = dir.appendingPathComponent("bad.ndjson.gz").path
        var failures = 0
        for position in positions.sorted() {
            var damaged = bytes
            damaged[position] ^= 0x01
            try Data(damaged).write(to: URL(fileURLWithPath: bad))
            let checkedFirst = try drain(bad)
            for ahead in [64 << 20, 1 << 16] {
                let parsed = try parse(bad, aheadOfCheck: ahead)
                let context = "byte \(position), \(ahead) bytes ahead"
                if let error = checkedFirst.error {
                    failures += 1
                    XCTAssertEqual(checkedFirst.bytes, [], context)
                    XCTAssertEqual(parsed.end.error, error, context)
                    XCTAssertEqual(parsed.end.lines, 0, context)
                    XCTAssertEqual(parsed.batches, 0, context)
                    XCTAssertEqual(parsed.taken.lines, [], context)
                    XCTAssertEqual(parsed.taken.forgotten, 1, context)
                } else {
                    XCTAssertNil(parsed.end.error, context)
                    XCTAssertEqual(parsed.bytes, Array(body.utf8), context)
                }
            }
        }
        XCTAssertGreaterThan(failures, positions.count / 2)
    }

    /// Every byte of `path` as a stream that checks each member first reads it, and the
    /// fault that ended it.
    func drain(_ path: String) throws -> (bytes: [UInt8], error: InputError?) {
        try ByteStream(path: path).drain()
    }
}
