import XCTest
import Simulator
@testable import FunnelModel

/// `JSONScanner.skipFlatObject` against `skipValue`: on random objects near the flat ones,
/// whatever the fast reading takes, `skipValue` takes too and ends at the same byte.
final class JSONScannerFlatObjectTests: XCTestCase {
    /// What each reading makes of `text` from its first byte: the end and the ASCII flag of
    /// the fast one (nil: left to `skipValue`), and the end of `skipValue` (nil: rejected).
    func readings(_ text: [UInt8]) -> (fast: (end: Int, ascii: Bool)?, full: Int?) {
        text.withUnsafeBufferPointer { b in
            var fast = JSONScanner(b)
            let ascii = fast.skipFlatObject()
            var full = JSONScanner(b)
            let end: Int?
            do throws(JSONSyntaxError) { try full.skipValue(); end = full.i } catch { end = nil }
            return (ascii.map { (fast.i, $0) }, end)
        }
    }

    func testTheFlatReadingTakesOnlyWhatSkipValueTakes() {
        var r = SplitMix64(seed: 0xF1A7)
        let keys = [#""gender""#, #""a""#, #""""#, #""é""#, #""k\u00e9""#, #""a\"b""#, #""x y""#, "\"\u{1}\"", #""goalWeightKg""#]
        let values = [#""male""#, #""""#, #""ü-ß""#, #""a\nb""#, "\"\u{7}\"", "1", "0", "-0", "104.2", "-0.5e-3", "2E+10", "01", "1.", "-",
                      "1e", ".5", "true", "false", "null", "tru", "nul", "falsey", "{}", "[]", "[1,2]", #"{"b":1}"#, "x", ""]
        let separators = [",", ",", ",", " ,", ", ", ",,", ""]
        let alphabet: [UInt8] = [0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A, 0x20, 0x0A, 0x01, 0x30, 0x2D, 0x2E, 0x65, 0x61, 0xC3, 0xA9, 0xFF]
        var taken = 0, left = 0
        for _ in 0..<60_000 {
            var text = "{"
            for k in 0..<r.below(5) {
                if k > 0 { text += r.pick(separators) }
                text += r.pick(keys) + (r.below(8) == 0 ? " :" : ":") + r.pick(values)
            }
            text += r.below(10) == 0 ? " }" : "}"
            var bytes = Array(text.utf8)
            for _ in 0..<[0, 0, 1, 2][r.below(4)] where !bytes.isEmpty {
                let at = r.below(bytes.count)
                switch r.below(3) {
                case 0: bytes[at] = r.pick(alphabet)
                case 1: bytes.remove(at: at)
                default: bytes.insert(r.pick(alphabet), at: at)
                }
            }
            bytes += r.pick([[], [0x2C], [0x7D], [0x22, 0x61]])
            let (fast, full) = readings(bytes)
            guard let fast else { left += 1; continue }
            taken += 1
            XCTAssertEqual(fast.end, full, String(decoding: bytes, as: UTF8.self))
            XCTAssertEqual(fast.ascii, bytes[..<fast.end].allSatisfy { $0 < 0x80 }, String(decoding: bytes, as: UTF8.self))
        }
        XCTAssertGreaterThan(taken, 5_000)
        XCTAssertGreaterThan(left, 10_000)
    }

    func testFlatObjectsAreTakenAndTheRestLeft() {
        let taken = [#"{}"#, #"{"gender":"male"}"#, #"{"goalWeightKg":104.2,"a":true,"b":false,"c":null,"d":-0.5e-3}"#, #"{"é":"ü"}"#]
        for t in taken {
            let (fast, full) = readings(Array(t.utf8))
            XCTAssertEqual(fast?.end, t.utf8.count, t)
            XCTAssertEqual(full, t.utf8.count, t)
        }
        let left = [#"{ }"#, #"{"a":1 }"#, #"{"a":[1]}"#, #"{"a":{}}"#, #"{"a\"":1}"#, #"{"a":1,}"#, #"{"a":01}"#, #"{"a":tru}"#, "[1]", #"{"a":1"#, ""]
        for t in left {
            XCTAssertNil(readings(Array(t.utf8)).fast, t)
        }
    }
}
