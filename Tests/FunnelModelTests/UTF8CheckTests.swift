import XCTest
import Simulator
@testable import FunnelModel

/// `UTF8Check.firstInvalid` (words of ASCII at a time, the line's last word at once) against
/// a byte-at-a-time reading of RFC 3629, on random lines of every length up to 80, with
/// non-ASCII bytes, valid and not, at every place, in a buffer that ends at an unreadable
/// page, so that a load past the line's end stops the test.
final class UTF8CheckTests: XCTestCase {
    /// The first invalid sequence's offset, a byte at a time: a lead byte, then as many
    /// continuation bytes as it takes, in the ranges the RFC's table gives.
    static func reading(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        while i < b.count {
            let c = b[i]
            let need: Int, lo: UInt8, hi: UInt8
            switch c {
            case 0..<0x80: i += 1; continue
            case 0xC2...0xDF: (need, lo, hi) = (1, 0x80, 0xBF)
            case 0xE0: (need, lo, hi) = (2, 0xA0, 0xBF)
            case 0xED: (need, lo, hi) = (2, 0x80, 0x9F)
            case 0xE1...0xEF: (need, lo, hi) = (2, 0x80, 0xBF)
            case 0xF0: (need, lo, hi) = (3, 0x90, 0xBF)
            case 0xF4: (need, lo, hi) = (3, 0x80, 0x8F)
            case 0xF1...0xF3: (need, lo, hi) = (3, 0x80, 0xBF)
            default: return i
            }
            guard i + need < b.count, (lo...hi).contains(b[i + 1]) else { return i }
            for k in 2...max(need, 2) where k <= need {
                guard (0x80...0xBF).contains(b[i + k]) else { return i }
            }
            i += need + 1
        }
        return nil
    }

    /// A line of `count` bytes, mostly ASCII, with a few pieces of UTF-8 (valid ones, or cut,
    /// or of a wrong byte) put at random places, most near its end.
    static func line(_ r: inout SplitMix64, count: Int, into m: UnsafeMutableBufferPointer<UInt8>) {
        for k in 0..<count { m[k] = UInt8(0x20 + r.below(0x5F)) }
        let pieces: [[UInt8]] = [[0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80], [0xED, 0xA0, 0x80],
                                 [0xC0, 0x80], [0xE2, 0x82], [0x80], [0xFF], [0xF4, 0x90, 0x80, 0x80], [0xE0, 0x80, 0x80]]
        for _ in 0..<r.below(3) where count > 0 {
            let piece = r.pick(pieces)
            let at = r.below(2) == 0 ? r.below(count) : max(0, count - 1 - r.below(10))
            for (k, c) in piece.enumerated() where at + k < count { m[at + k] = c }
        }
    }

    func testTheWordReadingFindsWhatTheBytesDo() {
        var r = SplitMix64(seed: 0x07F8)
        var invalid = 0, valid = 0, wide = 0
        for count in 0...80 {
            JSONScannerStringEndTests.withGuardedBuffer(count: count) { m in
                for _ in 0..<300 {
                    Self.line(&r, count: count, into: m)
                    let b = UnsafeBufferPointer(m)
                    let expected = Self.reading(b)
                    XCTAssertEqual(UTF8Check.firstInvalid(b), expected, "\(Array(b))")
                    if expected == nil { valid += 1 } else { invalid += 1 }
                    if expected == nil, b.contains(where: { $0 >= 0x80 }) { wide += 1 }
                }
            }
        }
        // All three kinds are met: ASCII lines, valid lines past ASCII, and invalid ones.
        XCTAssertGreaterThan(valid - wide, 3_000)
        XCTAssertGreaterThan(wide, 1_000)
        XCTAssertGreaterThan(invalid, 3_000)
    }
}
