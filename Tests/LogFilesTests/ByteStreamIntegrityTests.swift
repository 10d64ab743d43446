import CZlib
import CZstd
import XCTest
@testable import LogFiles
import Foundation
import TestSupport

/// No byte of a member that fails its check is handed on, whatever its size and the path
/// that reads it (libdeflate whole, or zlib streamed); padding, trailing bytes and header
/// CRCs are treated alike on both paths; zstd frames are read and checked as gzip members.
final class ByteStreamIntegrityTests: XCTestCase {
    func tempPath(_ name: String) -> String {
        Scratch.directory("funnel-integrity").appendingPathComponent(name).path
    }

    /// Every byte of `path`, and the fault that ended it.
    func drain(_ path: String, memberLimit: Int = 1 << 20) throws -> ([UInt8], InputError?) {
        try ByteStream(path: path, memberLimit: memberLimit).drain()
    }

    func lines(member m: Int, count: Int) -> String {
        (0..<count).map { #"{"event_id":"e-\#(m)-\#($0)","user_id":"u-000\#($0 % 10)","event":"onboarding.started"}"# + "\n" }.joined()
    }

    /// Three members: a small deflated one, a stored one of about 1.9 MB (over the whole
    /// path's 1 MiB: streamed) and a stored one of about 620 KB (decompressed whole). Stored
    /// members keep the lines' bytes as they are, so a flipped bit in a user id is valid
    /// deflate data that only the CRC-32 catches.
    func threeMembers() throws -> (path: String, bodies: [String], starts: [Int], bytes: [UInt8]) {
        let path = tempPath("three.gz")
        let bodies = [lines(member: 0, count: 300), lines(member: 1, count: 25_000), lines(member: 2, count: 8_000)]
        var starts: [Int] = []
        for (m, body) in bodies.enumerated() {
            starts.append((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
            let w = try GzipWriter(path: path, level: m == 0 ? 6 : 0, append: m > 0)
            try w.writeMember(body)
        }
        return (path, bodies, starts, Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    func testNoByteOfAMemberThatFailsItsCheckIsHandedOn() throws {
        let (_, bodies, starts, bytes) = try threeMembers()
        XCTAssertGreaterThan(bodies[1].utf8.count, 1 << 20)
        XCTAssertLessThan(bodies[2].utf8.count, 1 << 20)
        let bad = tempPath("flipped.gz")
        // Every header and trailer byte, and bytes all through each member's data.
        var positions = Set<Int>()
        for (m, start) in starts.enumerated() {
            let end = m + 1 < starts.count ? starts[m + 1] : bytes.count
            positions.formUnion(start..<(start + 10))
            positions.formUnion((end - 8)..<end)
            positions.formUnion(stride(from: start + 10, to: end - 8, by: max(1, (end - start) / 40)))
        }
        positions.remove(0)
        positions.remove(1)  // the file's magic: without it the file is not gzip at all
        var failures = 0
        for position in positions.sorted() {
            let member = starts.lastIndex { $0 <= position } ?? 0
            for bit in [0, 5] {
                var damaged = bytes
                damaged[position] ^= UInt8(1 << bit)
                try Data(damaged).write(to: URL(fileURLWithPath: bad))
                for limit in [0, 1 << 20] {
                    let (out, error) = try drain(bad, memberLimit: limit)
                    let context = "bit \(bit) of byte \(position) (member \(member + 1)), limit \(limit)"
                    let before = Array(bodies[..<member].joined().utf8)
                    if let error {
                        // A damaged end of block can run on through the members after it to
                        // the end of the file: truncated, and still nothing of the member.
                        failures += 1
                        XCTAssertEqual(out, before, "\(context): \(error)")
                        let named = error.reason.contains("gzip member \(member + 1)")
                            || error.reason.contains("after gzip member \(member) ")
                        XCTAssertTrue(named, "\(context): \(error)")
                        XCTAssertGreaterThanOrEqual(error.offset, Int64(starts[member]), context)
                    } else {
                        // Bits no check covers (the text flag, the time, a stored block's
                        // padding): the same bytes.
                        XCTAssertEqual(out, Array(bodies.joined().utf8), context)
                    }
                }
            }
        }
        XCTAssertGreaterThan(failures, positions.count)
    }

    /// The case of the issue: `u-0009` → `u-0008` inside the stored member that is streamed
    /// and inside the one decompressed whole.
    func testAFlippedUserIDIsNeverRead() throws {
        let (_, bodies, starts, bytes) = try threeMembers()
        let bad = tempPath("user.gz")
        for member in [1, 2] {
            let needle = Array("\"u-0009\"".utf8)
            let from = starts[member] + 10 + 40_000
            let at = try XCTUnwrap((from..<bytes.count).first { bytes[$0..<min(bytes.count, $0 + needle.count)].elementsEqual(needle) })
            var damaged = bytes
            damaged[at + 6] ^= 0x01  // "9" → "8"
            try Data(damaged).write(to: URL(fileURLWithPath: bad))
            for limit in [0, 1 << 20] {
                let (out, error) = try drain(bad, memberLimit: limit)
                XCTAssertEqual(error?.kind, .corrupt)
                XCTAssertTrue(error?.reason.contains("incorrect data check in gzip member \(member + 1)") == true, "\(String(describing: error))")
                XCTAssertEqual(String(decoding: out, as: UTF8.self), bodies[..<member].joined())
            }
        }
    }

    func testTrailingZerosArePaddingAndOtherBytesAreNamedAtTheirOffset() throws {
        let good = tempPath("padded.gz")
        let w = try GzipWriter(path: good)
        try w.writeMember(lines(member: 0, count: 50))
        try w.writeMember(lines(member: 1, count: 50))
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: good)))
        let body = lines(member: 0, count: 50) + lines(member: 1, count: 50)
        let padded = tempPath("zeros.gz")
        try Data(bytes + [UInt8](repeating: 0, count: 1000)).write(to: URL(fileURLWithPath: padded))
        let junk = tempPath("junk.gz")
        try Data(bytes + [0, 0, 0x41, 0x42, 0x43]).write(to: URL(fileURLWithPath: junk))
        for limit in [0, 1 << 20] {
            let (out, error) = try drain(padded, memberLimit: limit)
            XCTAssertNil(error)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), body)
            let (junkOut, junkError) = try drain(junk, memberLimit: limit)
            XCTAssertEqual(String(decoding: junkOut, as: UTF8.self), body)
            XCTAssertEqual(junkError?.kind, .corrupt)
            XCTAssertEqual(junkError?.offset, Int64(bytes.count + 2), "the first byte that is neither gzip nor padding")
            XCTAssertEqual(junkError?.reason, "the bytes after gzip member 2 (from byte \(bytes.count)) are not gzip data")
        }
    }

    /// A member whose header carries a CRC (FLG.FHCRC): read when it matches, rejected when
    /// it does not, on both paths (libdeflate does not check it; zlib does).
    func testAHeaderCRCIsCheckedOnBothPaths() throws {
        let plain = tempPath("plain.gz")
        let body = lines(member: 0, count: 100)
        try GzipWriter(path: plain).writeMember(body)
        let member = Array(try Data(contentsOf: URL(fileURLWithPath: plain)))
        var header = Array(member[0..<10])
        header[3] |= 0x02
        let crc = UInt16(truncatingIfNeeded: header.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) })
        let withCRC = header + [UInt8(crc & 0xFF), UInt8(crc >> 8)] + member[10...]
        let good = tempPath("hcrc.gz")
        try Data(member + withCRC).write(to: URL(fileURLWithPath: good))
        var damaged = withCRC
        damaged[10] ^= 0xFF
        let bad = tempPath("hcrc-bad.gz")
        try Data(member + damaged).write(to: URL(fileURLWithPath: bad))
        for limit in [0, 1 << 20] {
            let (out, error) = try drain(good, memberLimit: limit)
            XCTAssertNil(error)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), body + body)
            let (badOut, badError) = try drain(bad, memberLimit: limit)
            XCTAssertEqual(String(decoding: badOut, as: UTF8.self), body)
            XCTAssertEqual(badError?.kind, .corrupt)
            XCTAssertEqual(badError?.reason, "header crc mismatch in gzip member 2")
        }
    }

    // MARK: zstd

    /// `bodies` as zstd frames with content checksums, one after another.
    func zstdFrames(_ bodies: [String]) throws -> [UInt8] {
        let context = try XCTUnwrap(ZSTD_createCCtx())
        defer { ZSTD_freeCCtx(context) }
        ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
        var out: [UInt8] = []
        for body in bodies {
            let src = Array(body.utf8)
            var frame = [UInt8](repeating: 0, count: ZSTD_compressBound(src.count))
            let n = frame.withUnsafeMutableBytes { dst in
                src.withUnsafeBytes { ZSTD_compress2(context, dst.baseAddress, dst.count, $0.baseAddress, $0.count) }
            }
            XCTAssertEqual(ZSTD_isError(n), 0)
            out += frame[0..<n]
        }
        return out
    }

    func testZstdFramesAreReadAndCheckedLikeGzipMembers() throws {
        let bodies = [lines(member: 0, count: 2_000), lines(member: 1, count: 3_000)]
        let bytes = try zstdFrames(bodies)
        let good = tempPath("two.zst")
        try Data(bytes + [0, 0, 0, 0]).write(to: URL(fileURLWithPath: good))
        let (out, error) = try drain(good)
        XCTAssertNil(error)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), bodies.joined())
        let s = try ByteStream(path: good)
        var buf = [UInt8](repeating: 0, count: 1 << 20)
        while try buf.withUnsafeMutableBytes({ try s.read(into: $0) }) > 0 {}
        XCTAssertEqual(s.format, .zstd)
        XCTAssertEqual(s.members, 2)

        // A damaged byte in the second frame: nothing of it; the first frame whole.
        let firstLength = try zstdFrames([bodies[0]]).count
        var damaged = bytes
        damaged[firstLength + (bytes.count - firstLength) / 2] ^= 0x10
        let bad = tempPath("bad.zst")
        try Data(damaged).write(to: URL(fileURLWithPath: bad))
        let (badOut, badError) = try drain(bad)
        XCTAssertEqual(String(decoding: badOut, as: UTF8.self), bodies[0])
        XCTAssertEqual(badError?.kind, .corrupt)
        XCTAssertTrue(badError?.description.contains("corrupt zstd stream") == true, "\(String(describing: badError))")
        XCTAssertTrue(badError?.reason.contains("in zstd frame 2") == true, "\(String(describing: badError))")

        // Cut in the second frame: the first frame, then truncated at the cut.
        let cut = tempPath("cut.zst")
        try Data(bytes[0..<(bytes.count - 20)]).write(to: URL(fileURLWithPath: cut))
        let (cutOut, cutError) = try drain(cut)
        XCTAssertEqual(cutError?.kind, .truncated)
        XCTAssertEqual(cutError?.offset, Int64(bytes.count - 20))
        XCTAssertEqual(String(decoding: cutOut, as: UTF8.self), bodies[0])
    }

    // MARK: formats funnel does not read

    func testOtherCompressorsAreRefusedByName() throws {
        let dir = packageRoot.appendingPathComponent("Tests/Fixtures/compressed")
        for (file, name) in [("xz-named.ndjson.gz", "xz"), ("bzip2-named.ndjson.gz", "bzip2"),
                             ("zlib-named.ndjson.gz", "zlib"), ("zip-named.ndjson.gz", "zip")] {
            let path = dir.appendingPathComponent(file).path
            let (out, error) = try drain(path)
            XCTAssertEqual(out, [], file)
            XCTAssertEqual(error?.kind, .unsupported, file)
            XCTAssertEqual(error?.description, "\(path): \(name) data, not gzip: decompress it first")
            XCTAssertThrowsError(try InputFormat.check(path: path)) { e in
                XCTAssertEqual((e as? InputError)?.kind, .unsupported)
            }
        }
        let zst = dir.appendingPathComponent("events.ndjson.zst").path
        XCTAssertEqual(try InputFormat.check(path: zst), .zstd)
        let (out, error) = try drain(zst)
        XCTAssertNil(error)
        XCTAssertEqual(String(decoding: out, as: UTF8.self).split(separator: "\n").count, 20)
        XCTAssertEqual(InputFormat.sniff(Array("{\"event_id\"".utf8)), .text)
        XCTAssertEqual(InputFormat.sniff([UInt8]()), .text)
    }
}
