import CZlib
import XCTest
@testable import LogFiles
import Foundation
import TestSupport

/// Streamed gzip members through igzip: the bytes zlib gives, and on damaged input the bytes
/// before the fault and the fault itself (kind, offset, reason) that zlib alone gives.
final class IsalMemberDecoderTests: XCTestCase {
    func tempPath(_ name: String) -> String {
        Scratch.directory("funnel-igzip").appendingPathComponent(name).path
    }

    /// Every byte of `path` streamed (no member whole), and the fault that ended it.
    func drain(_ path: String, igzip: Bool, chunk: Int = 1 << 16) throws -> ([UInt8], InputError?, ByteStream) {
        let s = try ByteStream(path: path, memberLimit: 0)
        s.igzip = igzip
        let (out, fault) = try s.drain(chunk: chunk)
        return (out, fault, s)
    }

    /// The glp1 sample days, inflated and written again as one gzip member (the single-file
    /// layout): 2.7 MB of lines, over the whole path's 1 MiB.
    func singleMember() throws -> (path: String, body: [UInt8]) {
        let dir = sampleData.appendingPathComponent("glp1")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".gz") }.sorted()
        var body: [UInt8] = []
        for name in files {
            let (bytes, error, _) = try drain(dir.appendingPathComponent(name).path, igzip: false)
            XCTAssertNil(error)
            body += bytes
        }
        let path = tempPath("single.gz")
        try GzipWriter(path: path).writeMember(body)
        return (path, body)
    }

    func testTheSampleLogsStreamThroughIgzipAsThroughZlib() throws {
        var members = 0
        for path in try glp1SampleDays() {
            let name = (path as NSString).lastPathComponent
            let (zlib, e1, s1) = try drain(path, igzip: false)
            let (fast, e2, s2) = try drain(path, igzip: true, chunk: 4_099)
            XCTAssertNil(e1); XCTAssertNil(e2)
            XCTAssertEqual(fast, zlib, name)
            members += s1.members
            XCTAssertEqual(s2.members, s1.members, name)
            XCTAssertEqual(s1.igzipMembersRead, 0, name)
            XCTAssertEqual(s2.igzipMembersRead, s2.members, "every member of \(name) is igzip's")
            XCTAssertEqual(s2.bytesRead, s1.bytesRead, name)
        }
        XCTAssertGreaterThan(members, 9, "the sample logs are multi-member gzip")
    }

    func testASingleMemberOfTheSampleDaysIsIgzipsAndZlibsBytes() throws {
        let (path, body) = try singleMember()
        XCTAssertGreaterThan(body.count, 1 << 21)
        let (fast, error, s) = try drain(path, igzip: true)
        XCTAssertNil(error)
        XCTAssertEqual(fast.count, body.count)
        XCTAssertEqual(fast, body)
        XCTAssertEqual(s.members, 1)
        XCTAssertEqual(s.igzipMembersRead, 1)
        let lines = fast.split(separator: UInt8(ascii: "\n"))
        XCTAssertGreaterThan(lines.count, 10_000)
        XCTAssertTrue(lines.allSatisfy { $0.first == UInt8(ascii: "{") && $0.last == UInt8(ascii: "}") })
    }

    /// Bits flipped all through the single member (header, data, CRC-32, length) and the
    /// file cut short at many places: igzip's stream hands on what zlib's does and fails as it
    /// does, byte offsets and reasons alike.
    func testADamagedSingleMemberFailsAsTheZlibStreamDoes() throws {
        let (path, body) = try singleMember()
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var positions = Set(2..<10)
        positions.formUnion((bytes.count - 8)..<bytes.count)
        positions.formUnion(stride(from: 10, to: bytes.count - 8, by: bytes.count / 60))
        let bad = tempPath("single-bad.gz")
        var reasons = Set<String>()
        var failures = 0
        for position in positions.sorted() {
            for bit in [0, 3, 5, 7] {
                var damaged = bytes
                damaged[position] ^= UInt8(1 << bit)
                try Data(damaged).write(to: URL(fileURLWithPath: bad))
                let (zlibOut, zlibError, _) = try drain(bad, igzip: false)
                let (fastOut, fastError, s) = try drain(bad, igzip: true)
                let context = "bit \(bit) of byte \(position)"
                XCTAssertEqual(fastError, zlibError, context)
                XCTAssertEqual(fastOut, zlibOut, context)
                if let fastError {
                    failures += 1
                    reasons.insert(fastError.reason)
                    XCTAssertEqual(fastOut, [], "\(context): no byte of a failed member")
                    XCTAssertEqual(s.igzipMembersRead, 0, context)
                } else {
                    XCTAssertEqual(fastOut, body, context)
                    XCTAssertEqual(s.igzipMembersRead, 1, context)
                }
            }
        }
        XCTAssertGreaterThan(failures, positions.count * 2)
        XCTAssertTrue(reasons.contains("incorrect data check in gzip member 1"), "\(reasons)")
        XCTAssertTrue(reasons.contains("incorrect length check in gzip member 1"), "\(reasons)")
        XCTAssertTrue(reasons.contains("unknown header flags set in gzip member 1"), "\(reasons)")
        for cut in [5, 10, 11, 4_000, bytes.count / 2, bytes.count - 9, bytes.count - 8, bytes.count - 4, bytes.count - 1] {
            try Data(bytes[0..<cut]).write(to: URL(fileURLWithPath: bad))
            let (zlibOut, zlibError, _) = try drain(bad, igzip: false)
            let (fastOut, fastError, _) = try drain(bad, igzip: true)
            XCTAssertEqual(fastError?.kind, .truncated, "cut at \(cut)")
            XCTAssertEqual(fastError, zlibError, "cut at \(cut)")
            XCTAssertEqual(fastOut, zlibOut, "cut at \(cut)")
            XCTAssertEqual(fastOut, [], "cut at \(cut)")
        }
        let junk = tempPath("single-junk.gz")
        try Data(bytes + [0, 0x41]).write(to: URL(fileURLWithPath: junk))
        let (junkOut, junkError, _) = try drain(junk, igzip: true)
        XCTAssertEqual(junkOut, body)
        XCTAssertEqual(junkError?.kind, .corrupt)
        XCTAssertEqual(junkError?.offset, Int64(bytes.count + 1))
        XCTAssertEqual(junkError?.reason, "the bytes after gzip member 1 (from byte \(bytes.count)) are not gzip data")
    }

    /// Header fields igzip parses itself (extra field, file name, comment) read as zlib reads
    /// them; a header CRC goes to zlib, which checks it.
    func testHeaderFieldsAreSkippedAndAHeaderCRCIsZlibs() throws {
        let plain = tempPath("fields-plain.gz")
        let body = (0..<30_000).map { #"{"event_id":"e-\#($0)","user_id":"u-\#($0 % 977)"}"# + "\n" }.joined()
        try GzipWriter(path: plain).writeMember(body)
        let member = Array(try Data(contentsOf: URL(fileURLWithPath: plain)))
        var header = Array(member[0..<10])
        header[3] |= 0x04 | 0x08 | 0x10
        let fields: [UInt8] = [5, 0] + Array("AB\u{3}\0x".utf8) + Array("events.ndjson\0".utf8) + Array("a comment\0".utf8)
        let withFields = header + fields + member[10...]
        var crcHeader = Array(member[0..<10])
        crcHeader[3] |= 0x02
        let crc = UInt16(truncatingIfNeeded: crcHeader.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) })
        let withCRC = crcHeader + [UInt8(crc & 0xFF), UInt8(crc >> 8)] + member[10...]
        let path = tempPath("fields.gz")
        try Data(withFields + withCRC + member).write(to: URL(fileURLWithPath: path))
        let (out, error, s) = try drain(path, igzip: true)
        XCTAssertNil(error)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), body + body + body)
        XCTAssertEqual(s.members, 3)
        XCTAssertEqual(s.igzipMembersRead, 2, "the member with a header CRC is zlib's")
    }
}
