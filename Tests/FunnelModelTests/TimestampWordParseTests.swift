import XCTest
import Simulator
@testable import FunnelModel

/// `Timestamp.parse(bytes:lastDate:)` (fields read a word at a time) against the parser it
/// replaced, kept here byte for byte: random RFC 3339 texts valid and near-valid (every field
/// at and past its bounds, offsets, fractions of 0 to 9 digits, leap seconds, bytes changed,
/// dropped, added, texts cut short), alone and one after another through a kept date, in a
/// buffer that ends at an unreadable page.
final class TimestampWordParseTests: XCTestCase {
    /// The date the reference read last (`Timestamp.LastDate`'s twin).
    struct ReferenceDate {
        var head: UInt64 = 0
        var tail: UInt16 = 0
        var day: Int64 = 0
        var known = false
    }

    /// The parser before the word-at-a-time reading, unchanged: the reference.
    static func reference(bytes b: UnsafeBufferPointer<UInt8>, lastDate: inout ReferenceDate) -> Timestamp? {
        let n = b.count
        guard n >= 10, let p = b.baseAddress else { return nil }
        @inline(__always)
        func twoDigits(_ i: Int) -> Int64 {
            let hi = p[i] &- 48, lo = p[i + 1] &- 48
            return hi < 10 && lo < 10 ? Int64(hi) &* 10 &+ Int64(lo) : -1
        }
        let raw = UnsafeRawPointer(p)
        let head = raw.loadUnaligned(as: UInt64.self), tail = raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self)
        let dayNumber: Int64
        if lastDate.known, lastDate.head == head, lastDate.tail == tail {
            dayNumber = lastDate.day
        } else {
            let century = twoDigits(0), yy = twoDigits(2), month = twoDigits(5), day = twoDigits(8)
            guard century >= 0, yy >= 0, p[4] == 45, p[7] == 45, month >= 1, month <= 12, day >= 1 else { return nil }
            let year = century * 100 + yy
            guard day <= Timestamp.daysIn(month: month, year: year) else { return nil }
            dayNumber = Timestamp.days(year: year, month: month, day: day)
            lastDate.head = head
            lastDate.tail = tail
            lastDate.day = dayNumber
            lastDate.known = true
        }
        if n == 10 { return Timestamp(micros: dayNumber * 86_400_000_000, offsetSeconds: 0) }
        guard n >= 20, p[10] == 84 || p[10] == 116 || p[10] == 32, p[13] == 58, p[16] == 58 else { return nil }
        let hh = twoDigits(11), mm = twoDigits(14), ss = twoDigits(17)
        guard hh >= 0, mm >= 0, ss >= 0, hh <= 23, mm <= 59, ss <= 60 else { return nil }
        var i = 19
        var fraction: Int64 = 0
        if p[i] == 46 {
            i += 1
            var count = 0
            while i < n, p[i] &- 48 < 10 {
                if count < 6 { fraction = fraction * 10 + Int64(p[i] - 48) }
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            for _ in min(count, 6)..<6 { fraction *= 10 }
        }
        guard i < n else { return nil }
        var offset: Int64 = 0
        if p[i] == 90 || p[i] == 122 {
            i += 1
        } else if p[i] == 43 || p[i] == 45 {
            guard i + 6 <= n, p[i + 3] == 58 else { return nil }
            let oh = twoDigits(i + 1), om = twoDigits(i + 4)
            guard oh >= 0, om >= 0, oh <= 23, om <= 59 else { return nil }
            offset = (p[i] == 45 ? -1 : 1) * (oh * 3600 + om * 60)
            i += 6
        } else {
            return nil
        }
        guard i == n else { return nil }
        let local = dayNumber * 86_400 + hh * 3600 + mm * 60 + min(ss, 59)
        let utc = local - offset
        return Timestamp(micros: utc * 1_000_000 + fraction, offsetSeconds: Int32(offset))
    }

    /// `v` in `width` digits.
    static func digits(_ v: Int, _ width: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0x30, count: width)
        var x = v
        for k in stride(from: width - 1, through: 0, by: -1) {
            out[k] = UInt8(0x30 + x % 10)
            x /= 10
        }
        return out
    }

    /// A field's value: mostly in range, often at a bound, sometimes just past one.
    static func field(_ r: inout SplitMix64, _ low: Int, _ high: Int, past: Int) -> Int {
        switch r.below(6) {
        case 0: return low
        case 1: return high
        case 2: return min(past, high + 1 + r.below(max(1, past - high)))
        default: return low + r.below(high - low + 1)
        }
    }

    /// An RFC 3339 text, its fields at and around their bounds.
    static func text(_ r: inout SplitMix64) -> [UInt8] {
        let years = [0, 1, 1600, 1900, 1969, 1970, 2000, 2024, 2026, 2100, 2400, 9999]
        let year = r.below(3) == 0 ? r.below(10_000) : years[r.below(years.count)]
        let month = field(&r, 1, 12, past: 13) - (r.below(20) == 0 ? 1 : 0)
        let day = field(&r, 1, 28 + r.below(4), past: 32) - (r.below(20) == 0 ? 1 : 0)
        var t = digits(year, 4) + [0x2D] + digits(month, 2) + [0x2D] + digits(day, 2)
        if r.below(10) == 0 { return t }
        t.append([0x54, 0x54, 0x54, 0x74, 0x20, 0x5F][r.below(6)])
        t += digits(field(&r, 0, 23, past: 29), 2) + [0x3A] + digits(field(&r, 0, 59, past: 99), 2) + [0x3A]
        t += digits(field(&r, 0, 60, past: 99), 2)
        if r.below(4) != 0 {
            t.append(0x2E)
            for _ in 0..<r.below(10) { t.append(UInt8(0x30 + r.below(10))) }
        }
        switch r.below(7) {
        case 0: t.append(0x5A)
        case 1: t.append(0x7A)
        case 2: break
        default:
            t.append(r.below(2) == 0 ? 0x2B : 0x2D)
            t += digits(field(&r, 0, 23, past: 29), 2) + [0x3A] + digits(field(&r, 0, 59, past: 99), 2)
        }
        return t
    }

    /// The text with one change: a byte replaced, dropped or added, or the text cut short.
    static func nearMiss(_ t: [UInt8], _ r: inout SplitMix64) -> [UInt8] {
        let bytes: [UInt8] = Array("0123456789-:Tt Zz+./a".utf8) + [0x80, 0xFF, 0x00, 0x2F, 0x3B]
        guard !t.isEmpty else { return [bytes[r.below(bytes.count)]] }
        var m = t
        let at = r.below(m.count)
        switch r.below(4) {
        case 0: m[at] = bytes[r.below(bytes.count)]
        case 1: m.remove(at: at)
        case 2: m.insert(bytes[r.below(bytes.count)], at: at)
        default: m = Array(m[..<at])
        }
        return m
    }

    func testTheWordReadingReadsAsTheBytesDo() {
        var r = SplitMix64(seed: 0x7133)
        var fresh = 0, accepted = 0, texts = 0
        var kept = Timestamp.LastDate(), keptReference = ReferenceDate()
        for round in 0..<200_000 {
            var t = Self.text(&r)
            if round % 3 != 0 { t = Self.nearMiss(t, &r) }
            if round % 7 == 0 { t = Self.nearMiss(t, &r) }
            JSONScannerStringEndTests.withGuardedBuffer(count: t.count) { m in
                for k in t.indices { m[k] = t[k] }
                let b = UnsafeBufferPointer(m)
                var one = Timestamp.LastDate(), oneReference = ReferenceDate()
                let expected = Self.reference(bytes: b, lastDate: &oneReference)
                let alone = Timestamp.parse(bytes: b, lastDate: &one)
                let name = String(decoding: t, as: UTF8.self)
                XCTAssertEqual(alone?.micros, expected?.micros, name)
                XCTAssertEqual(alone?.offsetSeconds, expected?.offsetSeconds, name)
                // One after another: the kept date (the last valid one) is the same and reads the same.
                let after = Timestamp.parse(bytes: b, lastDate: &kept)
                let afterReference = Self.reference(bytes: b, lastDate: &keptReference)
                XCTAssertEqual(after?.micros, afterReference?.micros, name)
                XCTAssertEqual(after?.offsetSeconds, afterReference?.offsetSeconds, name)
                XCTAssertEqual(kept.known ? kept.day : nil, keptReference.known ? keptReference.day : nil, name)
                texts += 1
                if expected != nil { accepted += 1 }
                if round % 3 == 0 && expected != nil { fresh += 1 }
            }
        }
        // Both sides of the line met often: valid texts, near misses accepted and rejected.
        XCTAssertGreaterThan(fresh, 10_000)
        XCTAssertGreaterThan(accepted, 15_000)
        XCTAssertGreaterThan(texts - accepted, 50_000)
    }

    /// Every fraction of 1 to 12 digits before each zone, cut at every length: the same.
    func testEveryFractionLengthAndEnd() {
        for count in 0...12 {
            for zone in ["Z", "z", "+05:30", "-00:00", "+23:59", "-24:00", "+05:60", "+0530", ""] {
                let digits = (0..<count).map { Character(String(($0 * 7 + 3) % 10)) }
                let full = Array(("2026-10-03T23:59:60" + (count > 0 ? "." : "") + String(digits) + zone).utf8)
                for end in 10...full.count {
                    let t = Array(full[..<end])
                    JSONScannerStringEndTests.withGuardedBuffer(count: t.count) { m in
                        for k in t.indices { m[k] = t[k] }
                        var date = Timestamp.LastDate(), reference = ReferenceDate()
                        let got = Timestamp.parse(bytes: UnsafeBufferPointer(m), lastDate: &date)
                        let expected = Self.reference(bytes: UnsafeBufferPointer(m), lastDate: &reference)
                        let name = String(decoding: t, as: UTF8.self)
                        XCTAssertEqual(got?.micros, expected?.micros, name)
                        XCTAssertEqual(got?.offsetSeconds, expected?.offsetSeconds, name)
                    }
                }
            }
        }
        XCTAssertEqual(Timestamp.parse("2026-10-03T23:59:60.123456789+05:30")?.micros,
                       Timestamp.parse("2026-10-03T23:59:59.123456+05:30")?.micros)
    }
}
