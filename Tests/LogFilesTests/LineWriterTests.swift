import XCTest
@testable import LogFiles
import Foundation
import TestSupport

final class LineWriterTests: XCTestCase {
    func bytes(_ path: String) throws -> [UInt8] {
        let s = try ByteStream(path: path, chunkSize: 1 << 16)
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = try buf.withUnsafeMutableBytes { try s.read(into: $0) }
            if n == 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return out
    }

    /// Lines long enough that the gzip file has several members.
    let lines: [String] = (0..<50_000).map { #"{"event_id":"e-\#($0)","pad":"\#(String(repeating: "x", count: $0 % 97))"}"# }

    func write(_ path: String, gzip: Bool, finish: Bool = true) throws {
        let w = try LineWriter(path: path, gzip: gzip)
        for line in lines { try Array(line.utf8).withUnsafeBufferPointer { try w.write($0) } }
        if finish { try w.finish() }
    }

    func testPlainAndGzipHoldTheLines() throws {
        let dir = Scratch.directory("funnel-writer")
        let expected = Array((lines.joined(separator: "\n") + "\n").utf8)
        XCTAssertGreaterThan(expected.count, 3 * LineWriter.memberBytes)
        let plain = dir.appendingPathComponent("a.ndjson").path
        try write(plain, gzip: false)
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: plain))), expected)
        let gz = dir.appendingPathComponent("a.ndjson.gz").path
        try write(gz, gzip: true)
        let raw = Array(try Data(contentsOf: URL(fileURLWithPath: gz)))
        XCTAssertEqual(Array(raw.prefix(2)), [0x1F, 0x8B])
        XCTAssertLessThan(raw.count, expected.count / 5)
        XCTAssertEqual(try bytes(gz), expected)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["a.ndjson", "a.ndjson.gz"])
    }

    /// A writer that never finishes (a failed export) leaves no file and no partial one.
    func testUnfinishedWriteLeavesNothing() throws {
        let dir = Scratch.directory("funnel-writer")
        try write(dir.appendingPathComponent("b.ndjson.gz").path, gzip: true, finish: false)
        try write(dir.appendingPathComponent("b.ndjson").path, gzip: false, finish: false)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }

    func testUnwritableFolderIsNamed() throws {
        XCTAssertThrowsError(try LineWriter(path: "/nonexistent/dir/x.ndjson", gzip: false)) { error in
            XCTAssertEqual("\(error)", "cannot write /nonexistent/dir/x.ndjson: No such file or directory")
        }
    }
}
