import XCTest
@testable import LogFiles
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

    /// A member written in parts is the member written whole, byte for byte, however the
    /// input is cut, and a member may follow it in the same file.
    func testMemberInPartsIsTheWholeMember() throws {
        var body: [UInt8] = []
        var x: UInt64 = 7
        for n in 0..<60_000 {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            body += Array("{\"n\":\(n),\"user\":\"u-\(x >> 50)\",\"v\":\(x >> 40)}\n".utf8)
        }
        XCTAssertGreaterThan(body.count, 1 << 21, "longer than zlib's window and the writer's buffer")
        let whole = tempPath("whole.gz")
        try GzipWriter(path: whole).writeMember(body)
        let expected = try Array(Data(contentsOf: URL(fileURLWithPath: whole)))
        for cut in [3, 4_096, 65_536, 100_003, body.count] {
            let path = tempPath("parts-\(cut).gz")
            let w = try GzipWriter(path: path)
            try w.startMember()
            var i = 0
            while i < body.count {
                try w.writePart(Array(body[i..<min(body.count, i + cut)]))
                i += cut
            }
            try w.finishMember()
            try w.writeMember("after\n")
            let written = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            XCTAssertTrue(written.starts(with: expected), "cut \(cut): the member differs")
            XCTAssertEqual(try readAll(path, chunk: 1 << 16), body + Array("after\n".utf8), "cut \(cut)")
        }
        // An empty member in parts is the empty member.
        let empty = tempPath("empty.gz"), emptyParts = tempPath("empty-parts.gz")
        try GzipWriter(path: empty).writeMember([UInt8]())
        let w = try GzipWriter(path: emptyParts)
        try w.startMember()
        try w.finishMember()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: emptyParts)), try Data(contentsOf: URL(fileURLWithPath: empty)))
        XCTAssertThrowsError(try w.writePart(Array("no member\n".utf8)), "a part needs an open member")
    }

    func testPlainFilePassesThrough() throws {
        let path = tempPath("a.ndjson")
        try "{\"a\":1}\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(String(decoding: try readAll(path), as: UTF8.self), "{\"a\":1}\n")
    }

    /// A member cut short cannot pass its check: none of its bytes are read, and the error
    /// names the end of the file.
    func testATruncatedMemberIsNotReadAndTheEndIsNamed() throws {
        let full = tempPath("full.gz")
        let w = try GzipWriter(path: full)
        let body = (0..<2000).map { "{\"n\":\($0)}\n" }.joined()
        try w.writeMember(body)
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: full)))
        let cut = tempPath("cut.gz")
        try Data(bytes[0..<(bytes.count / 2)]).write(to: URL(fileURLWithPath: cut))
        let s = try ByteStream(path: cut, chunkSize: 128)
        var buf = [UInt8](repeating: 0, count: 100)
        XCTAssertThrowsError(try buf.withUnsafeMutableBytes { try s.read(into: $0) }) { error in
            XCTAssertEqual((error as? InputError)?.kind, .truncated)
            XCTAssertEqual((error as? InputError)?.offset, Int64(bytes.count / 2))
            XCTAssertEqual((error as? InputError)?.reason, "the stream ends inside gzip member 1")
        }
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

    // MARK: whole members (libdeflate) and the zlib stream give the same bytes and faults

    /// Every byte of `path`, the fault that ended it, and the stream (for its counters).
    func drain(_ path: String, memberLimit: Int, chunk: Int = 1 << 16) throws -> ([UInt8], InputError?, ByteStream) {
        let s = try ByteStream(path: path, memberLimit: memberLimit)
        let (out, fault) = try s.drain(chunk: chunk)
        return (out, fault, s)
    }

    func testWholeMembersMatchTheZlibStreamOnTheSampleLogs() throws {
        var members = 0
        for path in try glp1SampleDays() {
            let name = (path as NSString).lastPathComponent
            let (zlib, e1, s1) = try drain(path, memberLimit: 0)
            let (whole, e2, s2) = try drain(path, memberLimit: 1 << 20)
            XCTAssertNil(e1); XCTAssertNil(e2)
            XCTAssertEqual(whole, zlib, name)
            members += s1.members
            XCTAssertEqual(s2.members, s1.members, name)
            XCTAssertEqual(s1.wholeMembersRead, 0)
            XCTAssertEqual(s2.wholeMembersRead, s2.members, "every member of \(name) fits")
            XCTAssertEqual(s2.bytesRead, s1.bytesRead)
        }
        XCTAssertGreaterThan(members, 9, "the sample logs are multi-member gzip")
    }

    /// Members of 300, 40 000 and 300 lines: with a limit under the second member's size, the
    /// first is decompressed whole and the rest streamed, and the bytes are the same.
    func testAMemberOverTheLimitIsStreamedAndSoIsTheRest() throws {
        let path = tempPath("sizes.gz")
        let w = try GzipWriter(path: path)
        let members = [300, 40_000, 300].enumerated().map { m, n in (0..<n).map { "{\"m\":\(m),\"n\":\($0)}\n" }.joined() }
        for m in members { try w.writeMember(m) }
        let (bytes, error, s) = try drain(path, memberLimit: 64 << 10)
        XCTAssertNil(error)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), members.joined())
        XCTAssertEqual(s.members, 3)
        XCTAssertEqual(s.wholeMembersRead, 1)
    }

    /// Members of about 2, 20, 120 and 10 KB read 64 KiB at a time: the second goes straight
    /// into the reader's buffer, the third does not fit it and is staged, the fourth is staged
    /// (the third was too large to try); every one whole, the bytes the zlib stream's.
    func testWholeMembersIntoTheReadersBufferOrStagedGiveTheSameBytes() throws {
        let path = tempPath("growing.gz")
        let w = try GzipWriter(path: path)
        let members = [125, 1_250, 7_500, 625].enumerated().map { m, n in (0..<n).map { "{\"m\":\(m),\"n\":\($0)}\n" }.joined() }
        for m in members { try w.writeMember(m) }
        let (zlib, zlibError, _) = try drain(path, memberLimit: 0)
        let (whole, wholeError, s) = try drain(path, memberLimit: 1 << 20, chunk: 64 << 10)
        XCTAssertNil(zlibError)
        XCTAssertNil(wholeError)
        XCTAssertEqual(whole, zlib)
        XCTAssertEqual(String(decoding: whole, as: UTF8.self), members.joined())
        XCTAssertEqual(s.members, 4)
        XCTAssertEqual(s.wholeMembersRead, 4)
    }

    /// Good members, then one with damaged deflate data: the same bytes before the fault and
    /// the same error (kind, offset, member) as zlib alone gives.
    func testACorruptMemberFailsAsTheZlibStreamDoes() throws {
        let good = tempPath("good.gz")
        let w = try GzipWriter(path: good)
        let body = (0..<3).map { m in (0..<3000).map { "{\"m\":\(m),\"n\":\($0)}\n" }.joined() }
        for m in body { try w.writeMember(m) }
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: good)))
        let whole = try drain(good, memberLimit: 1 << 20)
        XCTAssertEqual(whole.2.wholeMembersRead, 3)
        // Damage the middle of the last member, and separately cut the file there.
        let cutAt = bytes.count - 400
        let cut = tempPath("cut.gz")
        try Data(bytes[0..<cutAt]).write(to: URL(fileURLWithPath: cut))
        for i in cutAt..<(cutAt + 40) { bytes[i] ^= 0x5a }
        let bad = tempPath("bad.gz")
        try Data(bytes).write(to: URL(fileURLWithPath: bad))
        for path in [bad, cut] {
            let (zlibBytes, zlibError, _) = try drain(path, memberLimit: 0)
            let (fastBytes, fastError, s) = try drain(path, memberLimit: 1 << 20)
            XCTAssertNotNil(zlibError, path)
            XCTAssertEqual(fastError, zlibError, path)
            XCTAssertEqual(fastBytes, zlibBytes, path)
            XCTAssertTrue(fastBytes.starts(with: Array((body[0] + body[1]).utf8)))
            XCTAssertEqual(s.wholeMembersRead, 2)
            XCTAssertTrue(fastError?.description.contains("gzip member 3") == true, "\(String(describing: fastError))")
        }
    }
}
