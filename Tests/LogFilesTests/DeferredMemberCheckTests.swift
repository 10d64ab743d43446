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

    /// The checks `path`'s stream hands over while it is read to the end, its bytes, and the
    /// fault that ended it.
    func read(_ path: String) throws -> (checks: [DeferredMemberCheck], bytes: Int, error: InputError?) {
        let d = try DeferringStream(path: path)
        let (bytes, error) = try d.stream.drain()
        return (d.checks, bytes.count, error)
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
        XCTAssertNil(a.error)
        XCTAssertEqual(a.checks.count, 1)
        XCTAssertEqual(a.bytes, large.utf8.count + small.utf8.count)
        XCTAssertEqual(a.checks.first?.passes(), true)
        let b = try read(second)
        XCTAssertNil(b.error)
        XCTAssertEqual(b.checks.count, 0)
        XCTAssertEqual(b.bytes, large.utf8.count + small.utf8.count)

        // The first member's data damaged: the deferred check fails, as the stream's own.
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: first)))
        bytes[500_000] ^= 0x01
        let damaged = dir.appendingPathComponent("damaged.gz").path
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let d = try DeferringStream(path: damaged)
        let out = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        defer { out.deallocate() }
        XCTAssertGreaterThan(try d.stream.read(into: out), 0)
        XCTAssertEqual(d.checks.count, 1)
        XCTAssertEqual(d.checks.first?.passes(), false)
        let checkedFirst = try ByteStream(path: damaged)
        XCTAssertThrowsError(try checkedFirst.read(into: out))

        // The damaged file replaced by the intact one once the stream has it open: the
        // check reads the bytes the stream reads, and fails.
        let replaced = dir.appendingPathComponent("replaced.gz").path
        try Data(bytes).write(to: URL(fileURLWithPath: replaced))
        let r = try DeferringStream(path: replaced)
        XCTAssertGreaterThan(try r.stream.read(into: out), 0)
        XCTAssertEqual(rename(first, replaced), 0)
        XCTAssertEqual(r.checks.first?.passes(), false)
    }
}
