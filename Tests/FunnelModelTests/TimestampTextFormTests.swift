import XCTest
@testable import FunnelModel

/// A time text's form writes the text again from the time it parses to, byte for byte, and
/// texts it could not write again have no form.
final class TimestampTextFormTests: XCTestCase {
    func form(_ text: String) -> Timestamp.TextForm? {
        Array(text.utf8).withUnsafeBufferPointer { Timestamp.TextForm.of($0) }
    }

    /// The text `form` writes for the time `text` parses to.
    func rewritten(_ text: String) throws -> String {
        let time = try XCTUnwrap(Timestamp.parse(text), text)
        let f = try XCTUnwrap(form(text), text)
        var out: [UInt8] = []
        time.appendText(f, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func testEveryWrittenFormComesBackAsItWas() throws {
        for text in ["2026-10-01T12:16:40.151-03:00", "2026-10-01T17:16:42.022+02:00", "2026-10-03T12:22:01Z",
                     "2026-10-03t12:22:01z", "2026-10-03 12:22:01.5Z", "1970-01-01T00:00:00.000000Z",
                     "1969-12-31T23:59:59.999999+00:00", "2026-10-03T12:22:01-00:00", "2026-10-03T12:22:01.120-00:00",
                     "0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59.9-23:59", "2024-02-29T05:30:00.000100+05:30",
                     "2026-03-29T01:59:59.0Z"] {
            XCTAssertEqual(try rewritten(text), text)
        }
    }

    /// Texts whose time does not keep every byte: a leap second, more digits than
    /// microseconds, an escape; and texts that are not RFC 3339 times at all.
    func testTextsItCouldNotWriteAgainHaveNoForm() {
        for text in ["2026-10-03T12:22:60Z", "2026-10-03T12:22:01.1234567Z", "2026-10-03T12:22:01.Z",
                     "2026-10-03T12:22:01\\u005a", "2026-10-03", "2026-10-03T12:22:01", "2026-10-03T12:22:01+0200",
                     "2026-10-03T12:22:01+02:00 ", "2026-10-03T12:22:01ZZ", "2026-10-03X12:22:01Z", "1791030121"] {
            XCTAssertNil(form(text), text)
        }
    }

    /// Generated times in every form, and each of them with one byte changed: whenever a text
    /// parses and has a form, the form writes it again exactly.
    func testGeneratedTextsAndNearMissesComeBackExactly() throws {
        var rng = SystemRandomNumberGenerator()
        var checked = 0
        for _ in 0..<3_000 {
            let micros = Int64.random(in: -5_000_000_000_000_000...200_000_000_000_000_000, using: &rng)
            let offset = Int32.random(in: -23...23, using: &rng) * 3600 + Int32([0, 30, 45, 59].randomElement(using: &rng) ?? 0) * 60
            let time = Timestamp(micros: micros, offsetSeconds: offset)
            // Another separator, fewer fraction digits.
            var bytes = Array(time.rfc3339().utf8)
            bytes[10] = [0x54, 0x74, 0x20].randomElement(using: &rng) ?? 0x54
            if let dot = bytes.firstIndex(of: 0x2E) {
                var end = dot + 1
                while end < bytes.count, bytes[end] &- 48 < 10 { end += 1 }
                let keep = Int.random(in: -1...(end - dot - 1), using: &rng)
                bytes.removeSubrange((keep < 0 ? dot : dot + 1 + keep)..<end)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            for candidate in [text] + (0..<4).map({ _ in mutated(bytes, &rng) }) {
                guard Timestamp.parse(candidate) != nil, form(candidate) != nil else { continue }
                XCTAssertEqual(try rewritten(candidate), candidate)
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 3_000)
    }

    /// `TextForm.of` as it read the text a byte at a time: the reference the word reading is
    /// checked against.
    static func referenceForm(_ b: [UInt8]) -> UInt8? {
        let n = b.count
        guard n >= 20 else { return nil }
        func digit(_ i: Int) -> Bool { b[i] &- 48 < 10 }
        guard digit(0), digit(1), digit(2), digit(3), digit(5), digit(6), digit(8), digit(9),
              digit(11), digit(12), digit(14), digit(15), digit(17), digit(18),
              b[4] == 0x2D, b[7] == 0x2D, b[13] == 0x3A, b[16] == 0x3A, b[17] <= 0x35 else { return nil }
        let separator: Int
        switch b[10] {
        case 0x54: separator = 0
        case 0x74: separator = 1
        case 0x20: separator = 2
        default: return nil
        }
        var i = 19, digits = 0
        if b[i] == 0x2E {
            i += 1
            while i < n, digit(i) { digits += 1; i += 1 }
            guard (1...6).contains(digits) else { return nil }
        }
        guard i < n else { return nil }
        let zone: Int
        switch b[i] {
        case 0x5A, 0x7A:
            guard i + 1 == n else { return nil }
            zone = b[i] == 0x5A ? 0 : 1
        case 0x2B, 0x2D:
            guard i + 6 == n, digit(i + 1), digit(i + 2), b[i + 3] == 0x3A, digit(i + 4), digit(i + 5) else { return nil }
            let zero = b[i + 1] == 0x30 && b[i + 2] == 0x30 && b[i + 4] == 0x30 && b[i + 5] == 0x30
            zone = b[i] == 0x2D && zero ? 3 : 2
        default:
            return nil
        }
        return UInt8(1 + digits + separator << 3 + zone << 5)
    }

    /// The word reading gives the form the byte reading gave, for texts in every form and
    /// each with one or two bytes changed to a byte next to a field's edges, cut short or
    /// made longer.
    func testTheWordReadingFindsTheFormsTheByteReadingFound() {
        var rng = SystemRandomNumberGenerator()
        let near: [UInt8] = [0x2F, 0x30, 0x35, 0x36, 0x39, 0x3A, 0x3B, 0x2D, 0x2B, 0x2C, 0x2E, 0x20, 0x54, 0x74, 0x5A, 0x7A,
                             0x00, 0x7F, 0x80, 0xB0, 0xFF, 0x10, 0x40, 0x1A]
        var found = 0, none = 0
        for _ in 0..<20_000 {
            let micros = Int64.random(in: -5_000_000_000_000_000...200_000_000_000_000_000, using: &rng)
            let offset = Int32.random(in: -23...23, using: &rng) * 3600 + Int32([0, 30, 45, 59].randomElement(using: &rng) ?? 0) * 60
            var bytes = Array(Timestamp(micros: micros, offsetSeconds: Bool.random(using: &rng) ? 0 : offset).rfc3339().utf8)
            if Bool.random(using: &rng), let z = bytes.last, z == 0x5A { bytes.removeLast(); bytes += Array("-00:00".utf8) }
            var candidates = [bytes]
            for _ in 0..<8 {
                var b = bytes
                for _ in 0..<Int.random(in: 1...2, using: &rng) {
                    b[Int.random(in: 0..<b.count, using: &rng)] = near.randomElement(using: &rng) ?? 0
                }
                candidates.append(b)
            }
            candidates.append(Array(bytes.dropLast(Int.random(in: 1...4, using: &rng))))
            candidates.append(bytes + [near.randomElement(using: &rng) ?? 0])
            for b in candidates {
                let expected = Self.referenceForm(b)
                let got = b.withUnsafeBufferPointer { Timestamp.TextForm.of($0) }?.code
                XCTAssertEqual(got, expected, String(decoding: b, as: UTF8.self))
                if expected == nil { none += 1 } else { found += 1 }
            }
        }
        XCTAssertGreaterThan(found, 20_000)
        XCTAssertGreaterThan(none, 20_000)
    }

    func mutated(_ bytes: [UInt8], _ rng: inout SystemRandomNumberGenerator) -> String {
        var b = bytes
        let i = Int.random(in: 0..<b.count, using: &rng)
        b[i] = [0x30, 0x35, 0x39, 0x2D, 0x2B, 0x3A, 0x5A, 0x7A, 0x2E, 0x36].randomElement(using: &rng) ?? 0x30
        return String(decoding: b, as: UTF8.self)
    }

    func testCodesAreOneVarintByteAndReadBack() throws {
        let f = try XCTUnwrap(form("2026-10-03 12:22:01.123456-00:00"))
        XCTAssertLessThan(f.code, 128)
        XCTAssertEqual(Timestamp.TextForm(code: f.code), f)
        XCTAssertNil(Timestamp.TextForm(code: 0))
        XCTAssertNil(Timestamp.TextForm(code: 8))
    }
}
