#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XCTest
import Simulator
@testable import FunnelModel

/// `JSONScanner.plainStringEnd` (sixteen bytes at a time) against a byte-at-a-time reading
/// and against `scanString`: random strings of quotes, backslashes, control bytes, ASCII and
/// UTF-8 bytes, at every length and start, in a buffer that ends at an unreadable page, so
/// a load past the buffer's end stops the test.
final class JSONScannerStringEndTests: XCTestCase {
    /// What the string at `start` is, read a byte at a time: its end and whether it is ASCII,
    /// or the first byte that is a backslash or a control byte, or nil when it does not end.
    enum Reading: Hashable {
        case plain(end: Int, ascii: Bool)
        case backslash
        case control
        case unterminated
    }

    static func reading(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Reading {
        var ascii = true
        for i in start..<b.count {
            let c = b[i]
            if c == 0x22 { return .plain(end: i, ascii: ascii) }
            if c == 0x5C { return .backslash }
            if c < 0x20 { return .control }
            if c >= 0x80 { ascii = false }
        }
        return .unterminated
    }

    /// A byte: a quote, backslash or control byte one time in `rare` each, else mostly ASCII,
    /// sometimes a byte of 0x80 and above (UTF-8 or not: the scan does not judge them).
    static func byte(_ r: inout SplitMix64, rare: Int) -> UInt8 {
        switch r.below(rare) {
        case 0: return 0x22
        case 1: return 0x5C
        case 2: return UInt8(r.below(0x20))
        default:
            switch r.below(8) {
            case 0: return UInt8(0x80 + r.below(0x80))
            case 1: return [0x7F, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0xA0, 0xDC][r.below(8)]
            default: return UInt8(0x20 + r.below(0x5F))
            }
        }
    }

    /// Runs `body` on a buffer of `count` bytes that ends where an unreadable page starts.
    static func withGuardedBuffer(count: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let size = 2 * page
        guard let map = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              map != MAP_FAILED else { return XCTFail("mmap") }
        defer { munmap(map, size) }
        XCTAssertEqual(mprotect(map + page, page, PROT_NONE), 0)
        let end = map.assumingMemoryBound(to: UInt8.self) + page
        body(UnsafeMutableBufferPointer(start: end - count, count: count))
    }

    func testTheVectorScanReadsAsTheBytesDo() {
        var r = SplitMix64(seed: 0x5EED)
        var seen: [Reading: Int] = [:]
        for count in 1...96 {
            Self.withGuardedBuffer(count: count) { m in
                for _ in 0..<40 {
                    let rare = [4, 12, 40, 200][r.below(4)]
                    for k in m.indices { m[k] = Self.byte(&r, rare: rare) }
                    for start in 1...count {
                        let saved = m[start - 1]
                        m[start - 1] = 0x22
                        let b = UnsafeBufferPointer(m)
                        let expected = Self.reading(b, from: start)
                        let got = JSONScanner.plainStringEnd(b, from: start)
                        switch expected {
                        case .plain(let end, let ascii):
                            XCTAssertTrue(got.map { $0.end == end && $0.ascii == ascii } ?? false,
                                          "count \(count) start \(start): \(String(describing: got)) for \(expected)")
                        default:
                            XCTAssertNil(got, "count \(count) start \(start): \(expected)")
                        }
                        // scanString from the opening quote: the same end, the same refusal.
                        var scanner = JSONScanner(b, at: start - 1)
                        let scanned: (start: Int, end: Int, escaped: Bool)?
                        do throws(JSONSyntaxError) { scanned = try scanner.scanString(decodeInto: nil) } catch { scanned = nil }
                        switch expected {
                        case .plain(let end, _):
                            XCTAssertTrue(scanned.map { $0.start == start && $0.end == end && !$0.escaped } ?? false)
                        case .backslash:
                            XCTAssertTrue(scanned.map(\.escaped) ?? true)
                        case .control, .unterminated:
                            XCTAssertNil(scanned)
                        }
                        seen[expected, default: 0] += 1
                        m[start - 1] = saved
                    }
                }
            }
        }
        // Every kind of string was met, and plain ones of both kinds at lengths past 32.
        XCTAssertGreaterThan(seen.count, 60)
        XCTAssertGreaterThan(seen[.backslash] ?? 0, 1_000)
        XCTAssertGreaterThan(seen[.control] ?? 0, 1_000)
        XCTAssertGreaterThan(seen[.unterminated] ?? 0, 1_000)
        XCTAssertTrue(seen.keys.contains { if case .plain(let e, false) = $0 { e > 40 } else { false } })
    }

    func testAPlainStringEndsAtItsQuoteInEachLane() {
        for length in 0...70 {
            for lead in 0..<17 {
                var bytes = [UInt8](repeating: 0x61, count: lead) + [0x22] + [UInt8](repeating: 0x62, count: length) + [0x22]
                bytes += [UInt8](repeating: 0x5C, count: 20)
                bytes.withUnsafeBufferPointer { b in
                    let got = JSONScanner.plainStringEnd(b, from: lead + 1)
                    XCTAssertEqual(got?.end, lead + 1 + length)
                    XCTAssertEqual(got?.ascii, true)
                }
                // A byte of 0x80 or above at each place makes it non-ASCII; a backslash or a
                // control byte refuses it.
                for k in 0..<length {
                    for (c, plain) in [(UInt8(0xC3), true), (0xFF, true), (0x5C, false), (0x1F, false), (0x00, false)] {
                        var m = bytes
                        m[lead + 1 + k] = c
                        m.withUnsafeBufferPointer { b in
                            let got = JSONScanner.plainStringEnd(b, from: lead + 1)
                            XCTAssertEqual(got?.end, plain ? lead + 1 + length : nil)
                            XCTAssertEqual(got?.ascii, plain ? false : nil)
                        }
                    }
                }
            }
        }
    }
}
