import XCTest
import Simulator
@testable import FunnelModel

/// `JSONScanner.scanString` (sixteen bytes at a time) against a reading of one byte a step:
/// random strings of plain bytes, UTF-8, quotes, controls and escapes good and bad, at every
/// length and start, in a buffer that ends at an unreadable page, with and without a decoding
/// buffer, under both rules. The same range, escape flag, decoded text and cursor for a
/// string it accepts; the same error, at the same offset, for one it rejects.
final class JSONScannerScanStringTests: XCTestCase {
    /// What scanning a string gave: its content's range, escape flag, decoded bytes and the
    /// cursor after it, or the error.
    enum Outcome: Equatable {
        case string(start: Int, end: Int, escaped: Bool, decoded: [UInt8], cursor: Int)
        case error(JSONSyntaxError)
    }

    /// The string at the cursor read one byte a step, each escape by the scanner's own
    /// `scanEscape`: what `scanString` must give.
    static func reference(_ sc: inout JSONScanner, decode: Bool) -> Outcome {
        var out: [UInt8] = []
        do throws(JSONSyntaxError) {
            try sc.expect(0x22, .string)
            let start = sc.i
            var escaped = false
            while true {
                guard sc.i < sc.b.count else { throw sc.fail(.unterminatedString) }
                let c = sc.b[sc.i]
                if c == 0x22 { break }
                if c < 0x20 { throw sc.fail(.controlCharacter) }
                if c == 0x5C {
                    if !escaped, decode { out.append(contentsOf: sc.b[start..<sc.i]) }
                    escaped = true
                    if decode {
                        try withUnsafeMutablePointer(to: &out) { p throws(JSONSyntaxError) in try sc.scanEscape(into: p) }
                    } else {
                        try sc.scanEscape(into: nil)
                    }
                    continue
                }
                if escaped, decode { out.append(c) }
                sc.i += 1
            }
            let end = sc.i
            sc.i += 1
            return .string(start: start, end: end, escaped: escaped, decoded: out, cursor: sc.i)
        } catch {
            return .error(error)
        }
    }

    static func scanned(_ sc: inout JSONScanner, decode: Bool) -> Outcome {
        var out: [UInt8] = []
        do throws(JSONSyntaxError) {
            let r = decode
                ? try withUnsafeMutablePointer(to: &out) { p throws(JSONSyntaxError) in try sc.scanString(decodeInto: p) }
                : try sc.scanString(decodeInto: nil)
            return .string(start: r.start, end: r.end, escaped: r.escaped, decoded: out, cursor: sc.i)
        } catch {
            return .error(error)
        }
    }

    /// A piece of string text: mostly plain ASCII, sometimes UTF-8 (valid or not), a quote,
    /// a control byte, or an escape, good or bad (`\u` ones with surrogates alone and paired).
    static func piece(_ r: inout SplitMix64, rare: Int) -> [UInt8] {
        switch r.below(rare) {
        case 0: return [0x22]
        case 1: return [UInt8(r.below(0x20))]
        case 2, 3:
            let escapes = [#"\n"#, #"\""#, #"\\"#, #"\/"#, #"\b"#, #"\f"#, #"\r"#, #"\t"#, #"\u00e9"#, #"\u20AC"#,
                           #"\ud83d\ude00"#, #"\ud83d"#, #"\ude00"#, #"\ud83dx"#, #"\ud83d\u0041"#, #"\ud83d\n"#,
                           #"\x"#, #"\u12"#, #"\u12g4"#, #"\"#, #"\u"#, #"\U0041"#, #"\'"#]
            return Array(escapes[r.below(escapes.count)].utf8)
        default:
            switch r.below(10) {
            case 0: return Array(Array(["é", "€", "😀"][r.below(3)].utf8).prefix(1 + r.below(4)))
            case 1: return [[0x7F, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0xA0, 0xDC, 0xFF, 0xC3][r.below(10)]]
            default:
                let c = UInt8(0x20 + r.below(0x5F))
                return [c == 0x22 || c == 0x5C ? 0x61 : c]
            }
        }
    }

    func testTheVectorScanReadsAsOneByteAStepDoes() {
        var r = SplitMix64(seed: 0xD1FF)
        var seen: [String: Int] = [:]
        for count in 1...96 {
            JSONScannerStringEndTests.withGuardedBuffer(count: count) { m in
                for _ in 0..<30 {
                    let rare = [6, 16, 60, 400][r.below(4)]
                    var text: [UInt8] = []
                    while text.count < count { text += Self.piece(&r, rare: rare) }
                    for k in m.indices { m[k] = text[k] }
                    for start in 0..<count {
                        let saved = m[start]
                        m[start] = 0x22
                        let b = UnsafeBufferPointer(m)
                        for rules in [JSONScanner.Rules.eventLine, .document] {
                            for decode in [false, true] {
                                var plain = JSONScanner(b, at: start, rules: rules)
                                var fast = JSONScanner(b, at: start, rules: rules)
                                let expected = Self.reference(&plain, decode: decode)
                                let got = Self.scanned(&fast, decode: decode)
                                XCTAssertEqual(got, expected, "count \(count) start \(start) \(rules) decode \(decode)")
                                switch expected {
                                case .string(_, _, let escaped, _, _): seen[escaped ? "escaped" : "plain", default: 0] += 1
                                case .error(let e): seen[e.message, default: 0] += 1
                                }
                            }
                        }
                        m[start] = saved
                    }
                }
            }
        }
        // Every outcome was met, many times: plain and escaped strings, and each error.
        for key in ["plain", "escaped", "unterminated string", "control character in string", "invalid escape",
                    "invalid \\u escape", "incomplete \\u escape", "unterminated escape", "unpaired surrogate"] {
            XCTAssertGreaterThan(seen[key] ?? 0, 100, key)
        }
    }

    /// A long escaped string: the runs between escapes, each at every length across the
    /// sixteen-byte steps, decode to the bytes between them.
    func testRunsBetweenEscapesAreCopiedWhole() throws {
        for run in 0...40 {
            for lead in 0..<17 {
                let plain = (0..<run).map { UInt8(0x41 + $0 % 26) }
                let body = plain + Array(#"\n"#.utf8) + plain + Array(#"\u00e9"#.utf8) + plain
                let text = [UInt8](repeating: 0x20, count: lead) + [0x22] + body + [0x22]
                let decoded = plain + [0x0A] + plain + [0xC3, 0xA9] + plain
                try text.withUnsafeBufferPointer { b in
                    var sc = JSONScanner(b, at: lead)
                    var out: [UInt8] = []
                    let r = try withUnsafeMutablePointer(to: &out) { p throws(JSONSyntaxError) in try sc.scanString(decodeInto: p) }
                    XCTAssertEqual(r.start, lead + 1)
                    XCTAssertEqual(r.end, text.count - 1)
                    XCTAssertTrue(r.escaped)
                    XCTAssertEqual(out, decoded)
                    XCTAssertEqual(sc.i, text.count)
                }
            }
        }
    }
}
