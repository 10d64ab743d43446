import XCTest
#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import LogFiles
import TestSupport

/// A stream asked to defer its first member's check hands that check over only for a
/// regular file whose first member is streamed; the check passes the intact member and
/// fails a damaged one, as the stream's own check does.
final class DeferredMemberCheckTests: XCTestCase {
    /// `count` lines of about 60 bytes.
    func body(_ count: Int) -> String {
        (0..<count).map { #"{"event_id":"e-\#($0)","user_id":"u-\#($0 % 10)","event":"x"}"# + "\n" }.joined()
    }

    /// The checks `path`'s stream hands over while it is read to the end, and its bytes.
    func read(_ path: String) throws -> (checks: [DeferredMemberCheck], bytes: Int) {
        let s = try ByteStream(path: path)
        var checks: [DeferredMemberCheck] = []
        s.onDeferredCheck = { checks.append($0) }
        var total = 0
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = try buf.withUnsafeMutableBytes { try s.read(into: $0) }
            if n == 0 { break }
            total += n
        }
        return (checks, total)
    }

    func testOnlyAStreamedFirstMemberOfARegularFileHasItsCheckDeferred() throws {
        let dir = Scratch.directory("deferred-check")
        let large = body(25_000), small = body(300)
        XCTAssertGreaterThan(large.utf8.count, 1 << 20)
        // A large (streamed) first member, then a small one.
        let first = dir.appendingPathComponent("first.gz").path
        try GzipWriter(path: first, level: 0).writeMember(large)
        try GzipWriter(path: first, level: 6, append: true).writeMember(small)
        // A small (whole) first member, then a large one, checked first as ever.
        let second = dir.appendingPathComponent("second.gz").path
        try GzipWriter(path: second, level: 6).writeMember(small)
        try GzipWriter(path: second, level: 0, append: true).writeMember(large)

        let a = try read(first)
        XCTAssertEqual(a.checks.count, 1)
        XCTAssertEqual(a.bytes, large.utf8.count + small.utf8.count)
        XCTAssertEqual(a.checks.first?.passes(), true)
        let b = try read(second)
        XCTAssertEqual(b.checks.count, 0)
        XCTAssertEqual(b.bytes, large.utf8.count + small.utf8.count)

        // The first member's data damaged: the deferred check fails, as the stream's own.
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: first)))
        bytes[500_000] ^= 0x01
        let damaged = dir.appendingPathComponent("damaged.gz").path
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let s = try ByteStream(path: damaged)
        var checks: [DeferredMemberCheck] = []
        s.onDeferredCheck = { checks.append($0) }
        let out = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        defer { out.deallocate() }
        XCTAssertGreaterThan(try s.read(into: out), 0)
        XCTAssertEqual(checks.count, 1)
        XCTAssertEqual(checks.first?.passes(), false)
        let checkedFirst = try ByteStream(path: damaged)
        XCTAssertThrowsError(try checkedFirst.read(into: out))

        // The damaged file replaced by the intact one once the stream has it open: the
        // check reads the bytes the stream reads, and fails.
        let replaced = dir.appendingPathComponent("replaced.gz").path
        try Data(bytes).write(to: URL(fileURLWithPath: replaced))
        let r = try ByteStream(path: replaced)
        var late: [DeferredMemberCheck] = []
        r.onDeferredCheck = { late.append($0) }
        XCTAssertGreaterThan(try r.read(into: out), 0)
        XCTAssertEqual(rename(first, replaced), 0)
        XCTAssertEqual(late.first?.passes(), false)
    }
}
