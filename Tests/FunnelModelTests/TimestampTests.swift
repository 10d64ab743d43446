import XCTest
@testable import FunnelModel

final class TimestampTests: XCTestCase {
    /// 2026-10-03T12:22:01Z in seconds since the epoch.
    let noonish: Int64 = 1_791_030_121

    func testOffsetsAreTakenOffAndKept() throws {
        let utc = try XCTUnwrap(Timestamp.parse("2026-10-03T12:22:01Z"))
        XCTAssertEqual(utc.micros, noonish * 1_000_000)
        XCTAssertEqual(utc.offsetSeconds, 0)
        let east = try XCTUnwrap(Timestamp.parse("2026-10-03T14:22:01+02:00"))
        XCTAssertEqual(east.micros, utc.micros)
        XCTAssertEqual(east.offsetSeconds, 7200)
        let west = try XCTUnwrap(Timestamp.parse("2026-10-03T04:52:01-07:30"))
        XCTAssertEqual(west.micros, utc.micros)
        XCTAssertEqual(west.offsetSeconds, -27_000)
        // Lower-case separators and a space are accepted.
        XCTAssertEqual(Timestamp.parse("2026-10-03 12:22:01z")?.micros, utc.micros)
        XCTAssertEqual(Timestamp.parse("2026-10-03t12:22:01Z")?.micros, utc.micros)
    }

    func testFractionsAreTruncatedToMicroseconds() {
        XCTAssertEqual(Timestamp.parse("2026-10-03T12:22:01.5Z")?.micros, noonish * 1_000_000 + 500_000)
        XCTAssertEqual(Timestamp.parse("2026-10-03T12:22:01.123Z")?.micros, noonish * 1_000_000 + 123_000)
        XCTAssertEqual(Timestamp.parse("2026-10-03T12:22:01.1234569Z")?.micros, noonish * 1_000_000 + 123_456)
        XCTAssertNil(Timestamp.parse("2026-10-03T12:22:01.Z"))
    }

    func testDatesAloneAndImpossibleDates() {
        XCTAssertEqual(Timestamp.parse("2026-10-03")?.micros, (noonish - (12 * 3600 + 22 * 60 + 1)) * 1_000_000)
        XCTAssertNotNil(Timestamp.parse("2028-02-29T00:00:00Z"))
        XCTAssertNil(Timestamp.parse("2026-02-29T00:00:00Z"))
        XCTAssertNil(Timestamp.parse("2026-02-30"))
        XCTAssertNil(Timestamp.parse("2026-13-01"))
        XCTAssertNil(Timestamp.parse("2026-10-03T24:00:00Z"))
        XCTAssertNil(Timestamp.parse("2026-10-03T12:22:01"), "no offset")
        XCTAssertNil(Timestamp.parse("2026-10-03T12:22:01+0200"), "offset without a colon")
        XCTAssertNil(Timestamp.parse("2026-10-03T12:22:01Z "), "trailing text")
        XCTAssertNil(Timestamp.parse(""))
    }

    func testTheParserAgreesWithAPlainDigitByDigitReadingOnNearMisses() {
        let seeds = ["2026-10-03T14:22:01.123+02:00", "2026-10-03T12:22:01Z", "2028-02-29 23:59:60.1234567-11:45",
                     "1999-12-31t00:00:00z", "2026-10-03", "0001-01-01T00:00:00.000001+00:00", "2100-02-28T12:00:00Z"]
        let bytes: [UInt8] = Array("0159-:Tt Zz+./a".utf8) + [0x80, 0x00]
        var texts: [[UInt8]] = []
        for seed in seeds.map({ Array($0.utf8) }) {
            texts.append(seed)
            for i in seed.indices {
                texts.append(Array(seed[..<i]))
                var dropped = seed
                dropped.remove(at: i)
                texts.append(dropped)
                for b in bytes {
                    var changed = seed
                    changed[i] = b
                    texts.append(changed)
                    var inserted = seed
                    inserted.insert(b, at: i)
                    texts.append(inserted)
                }
            }
        }
        var accepted = 0
        // Also read one after another keeping the last date (`LastDate`), in both orders: each
        // text after others of its date, valid or not, reads as it does alone.
        var last = Timestamp.LastDate(), lastBack = Timestamp.LastDate()
        var back: [Timestamp?] = []
        for text in texts.reversed() {
            back.append(text.withUnsafeBufferPointer { Timestamp.parse(bytes: $0, lastDate: &lastBack) })
        }
        for (k, text) in texts.enumerated() {
            let (fast, plain) = text.withUnsafeBufferPointer { (Timestamp.parse(bytes: $0), TimestampTests.plainParse($0)) }
            let remembered = text.withUnsafeBufferPointer { Timestamp.parse(bytes: $0, lastDate: &last) }
            let name = String(decoding: text, as: UTF8.self)
            XCTAssertEqual(fast?.micros, plain?.micros, name)
            XCTAssertEqual(fast?.offsetSeconds, plain?.offsetSeconds, name)
            XCTAssertEqual(remembered?.micros, plain?.micros, "after the texts before: \(name)")
            XCTAssertEqual(remembered?.offsetSeconds, plain?.offsetSeconds, "after the texts before: \(name)")
            XCTAssertEqual(back[texts.count - 1 - k]?.micros, plain?.micros, "after the texts after: \(name)")
            if fast != nil { accepted += 1 }
        }
        XCTAssertGreaterThan(accepted, 200)
        XCTAssertGreaterThan(texts.count - accepted, 2000)
    }

    /// RFC 3339 read digit by digit with every index checked: the reading the parser's must
    /// equal, whatever the bytes.
    static func plainParse(_ b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        let n = b.count
        func digits(_ at: Int, _ count: Int) -> Int64? {
            guard at + count <= n else { return nil }
            var v: Int64 = 0
            for i in at..<(at + count) {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int64(b[i] - 48)
            }
            return v
        }
        guard let year = digits(0, 4), n >= 10, b[4] == 45, let month = digits(5, 2), b[7] == 45,
              let day = digits(8, 2), (1...12).contains(month), day >= 1 else { return nil }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        guard day <= [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][Int(month - 1)] else { return nil }
        let dayNumber = Timestamp.days(year: year, month: month, day: day)
        if n == 10 { return Timestamp(micros: dayNumber * 86_400_000_000, offsetSeconds: 0) }
        guard n >= 20, [84, 116, 32].contains(b[10]), let hh = digits(11, 2), b[13] == 58, let mm = digits(14, 2),
              b[16] == 58, let ss = digits(17, 2), hh <= 23, mm <= 59, ss <= 60 else { return nil }
        // After the seconds: an optional fraction, then the zone, told apart by where the zone
        // starts (its first Z, z, + or -).
        let rest = Array(b[19...])
        let zone = rest.firstIndex { [90, 122, 43, 45].contains($0) } ?? rest.count
        var fraction: Int64 = 0
        if zone > 0 {
            let digits = rest[1..<zone]
            guard rest[0] == 46, !digits.isEmpty, digits.allSatisfy({ (48...57).contains($0) }) else { return nil }
            let micros = String(decoding: digits.prefix(6), as: UTF8.self).padding(toLength: 6, withPad: "0", startingAt: 0)
            fraction = Int64(micros) ?? 0
        }
        let tz = Array(rest[zone...])
        var offset: Int64 = 0
        switch tz.first {
        case 90?, 122?:
            guard tz.count == 1 else { return nil }
        case 43?, 45?:
            guard tz.count == 6, tz[3] == 58, let oh = digits(19 + zone + 1, 2), let om = digits(19 + zone + 4, 2),
                  oh <= 23, om <= 59 else { return nil }
            offset = (tz[0] == 45 ? -1 : 1) * (oh * 3600 + om * 60)
        default:
            return nil
        }
        let utc = dayNumber * 86_400 + hh * 3600 + mm * 60 + min(ss, 59) - offset
        return Timestamp(micros: utc * 1_000_000 + fraction, offsetSeconds: Int32(offset))
    }

    func testWritingGivesBackWhatWasRead() throws {
        for text in ["2026-10-03T14:22:01.123+02:00", "2026-10-03T12:22:01.000Z", "1969-12-31T23:59:59.999999Z",
                     "2026-10-03T04:52:01.000250-07:30"] {
            let t = try XCTUnwrap(Timestamp.parse(text), text)
            XCTAssertEqual(t.rfc3339(), text)
            XCTAssertEqual(Timestamp.parse(t.rfc3339(utc: true))?.micros, t.micros)
        }
        XCTAssertEqual(Timestamp.parse("2026-10-03T14:22:01+02:00")?.description, "2026-10-03T12:22:01.000Z")
        XCTAssertEqual(Timestamp.parse("2026-10-03T23:30:00-05:00")?.utcDay, "2026-10-04")
        // Past four-digit years, every digit is written.
        XCTAssertEqual(Timestamp.parse("9999-12-31T23:59:59-01:00")?.rfc3339(utc: true), "10000-01-01T00:59:59.000Z")
        var bytes = Array("ts=".utf8)
        try XCTUnwrap(Timestamp.parse("2026-10-03T04:52:01.000250-07:30")).appendRFC3339(into: &bytes)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "ts=2026-10-03T04:52:01.000250-07:30")
    }

    /// Random times in every offset funnel's samples write, to the microsecond: each written
    /// text reads back as the same instant and offset.
    func testWrittenTimesReadBack() throws {
        var state: UInt64 = 3
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        for i in 0..<2000 {
            let micros = Int64(next() % 4_000_000_000_000_000)
            let offset = Int32(Int(next() % 57) - 28) * 1800
            let t = Timestamp(micros: i % 2 == 0 ? micros / 1000 * 1000 : micros, offsetSeconds: offset)
            let text = t.rfc3339()
            XCTAssertEqual(text.utf8.count, (t.micros % 1000 == 0 ? 23 : 26) + (offset == 0 ? 1 : 6), text)
            let back = try XCTUnwrap(Timestamp.parse(text), text)
            XCTAssertEqual(back.micros, t.micros, text)
            XCTAssertEqual(back.offsetSeconds, offset, text)
        }
    }

    func testTheUTCDayIsTheDateOfTheUTCReading() throws {
        XCTAssertEqual(Timestamp.parse("1969-12-31T23:59:59.999999Z")?.utcDay, "1969-12-31")
        XCTAssertEqual(Timestamp.parse("0001-01-01T00:00:00+01:00")?.utcDay, "0000-12-31")
        XCTAssertEqual(Timestamp.parse("9999-12-31T23:59:59-01:00")?.utcDay, "10000-01-01")
        // Every day from 1600 to 2400, at each end of the day, against the full reading.
        var micros = try XCTUnwrap(Timestamp.parse("1600-01-01T00:00:00Z")).micros
        let end = try XCTUnwrap(Timestamp.parse("2400-01-01T00:00:00Z")).micros
        var days = 0
        while micros < end {
            for t in [Timestamp(micros: micros), Timestamp(micros: micros + 86_399_999_999)] {
                XCTAssertEqual(t.utcDay, String(t.rfc3339(utc: true).prefix(10)))
            }
            micros += 86_400_000_000
            days += 1
        }
        XCTAssertEqual(days, 292_194)
    }

    func testOrderIsByInstantNotByOffset() throws {
        let a = try XCTUnwrap(Timestamp.parse("2026-10-03T14:00:00+02:00"))
        let b = try XCTUnwrap(Timestamp.parse("2026-10-03T12:00:00.001Z"))
        XCTAssertLessThan(a, b)
        XCTAssertEqual(a, try XCTUnwrap(Timestamp.parse("2026-10-03T12:00:00Z")))
        XCTAssertEqual(a.adding(seconds: 1.5).micros - a.micros, 1_500_000)
    }
}
