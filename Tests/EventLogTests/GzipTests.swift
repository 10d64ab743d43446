import XCTest
@testable import EventLog
import Foundation
import TestSupport

final class GzipTests: XCTestCase {
    func tempPath(_ name: String) -> String {
        Scratch.directory("funnel-gzip").appendingPathComponent(name).path
    }

    func readAll(_ path: String, chunk: Int = 7) throws -> [UInt8] {
        let s = try ByteStream(path: path, chunkSize: 64)
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: chunk)
        while true {
            let n = try buf.withUnsafeMutableBytes { try s.read(into: $0) }
            if n == 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return out
    }

    func testMultiMemberRoundTrip() throws {
        let path = tempPath("a.ndjson.gz")
        let w = try GzipWriter(path: path)
        try w.writeMember("line one\nline two\n")
        try w.writeMember("")
        try w.writeMember("line three\n")
        let text = String(decoding: try readAll(path), as: UTF8.self)
        XCTAssertEqual(text, "line one\nline two\nline three\n")
    }

    func testPlainFilePassesThrough() throws {
        let path = tempPath("a.ndjson")
        try "{\"a\":1}\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(String(decoding: try readAll(path), as: UTF8.self), "{\"a\":1}\n")
    }

    func testTruncatedStreamKeepsPrefixAndReportsOffset() throws {
        let full = tempPath("full.gz")
        let w = try GzipWriter(path: full)
        let body = (0..<2000).map { "{\"n\":\($0)}\n" }.joined()
        try w.writeMember(body)
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: full)))
        let cut = tempPath("cut.gz")
        try Data(bytes[0..<(bytes.count / 2)]).write(to: URL(fileURLWithPath: cut))
        let s = try ByteStream(path: cut, chunkSize: 128)
        var got: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 100)
        do {
            while true {
                let n = try buf.withUnsafeMutableBytes { try s.read(into: $0) }
                if n == 0 { break }
                got.append(contentsOf: buf[0..<n])
            }
            XCTFail("a truncated stream must throw")
        } catch let e as InputError {
            XCTAssertEqual(e.kind, .truncated)
            XCTAssertEqual(e.offset, Int64(bytes.count / 2))
        }
        XCTAssertGreaterThan(got.count, 1000)
        XCTAssertTrue(body.utf8.starts(with: got))
        // Reading again after the error ends the stream instead of looping.
        let n = try buf.withUnsafeMutableBytes { try s.read(into: $0) }
        XCTAssertEqual(n, 0)
    }

    func testCorruptStreamThrows() throws {
        let full = tempPath("full.gz")
        let w = try GzipWriter(path: full)
        try w.writeMember(String(repeating: "abcdefgh\n", count: 500))
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: full)))
        for i in 20..<40 { bytes[i] ^= 0x5a }
        let bad = tempPath("bad.gz")
        try Data(bytes).write(to: URL(fileURLWithPath: bad))
        XCTAssertThrowsError(try readAll(bad)) { error in
            guard let e = error as? InputError else { return XCTFail("\(error)") }
            XCTAssertTrue(e.kind == .corrupt || e.kind == .truncated)
            XCTAssertTrue(e.description.contains(bad))
        }
    }

    func testMissingFileIsUnreadable() {
        XCTAssertThrowsError(try ByteStream(path: "/nonexistent/x.gz")) { error in
            XCTAssertEqual((error as? InputError)?.kind, .unreadable)
        }
    }
}
