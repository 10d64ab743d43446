/// A point in time as an event carries it: microseconds since the Unix epoch (UTC) plus the UTC
/// offset the client wrote, so the original wall-clock reading can be shown again.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var micros: Int64
    public var offsetSeconds: Int32

    public init(micros: Int64, offsetSeconds: Int32 = 0) {
        self.micros = micros
        self.offsetSeconds = offsetSeconds
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.micros < b.micros }
    public static func == (a: Timestamp, b: Timestamp) -> Bool { a.micros == b.micros }
    public func hash(into hasher: inout Hasher) { hasher.combine(micros) }

    public var seconds: Double { Double(micros) / 1_000_000 }

    public func adding(seconds: Double) -> Timestamp {
        Timestamp(micros: micros + Int64((seconds * 1_000_000).rounded()), offsetSeconds: offsetSeconds)
    }

    /// RFC 3339 in UTC with millisecond precision: `2026-10-03T12:22:01.123Z`.
    public var description: String { rfc3339(utc: true) }

    /// RFC 3339; in the original offset unless `utc` is set. Milliseconds are always written;
    /// microseconds only when they are not zero.
    public func rfc3339(utc: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        appendRFC3339(utc: utc, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `rfc3339(utc:)`'s text, appended to `out` as UTF-8: the text form with `T`,
    /// milliseconds (microseconds when they are not zero), and `Z` or the offset.
    public func appendRFC3339(utc: Bool = false, into out: inout [UInt8]) {
        let time = utc ? Timestamp(micros: micros, offsetSeconds: 0) : self
        // The microseconds past the second (the offset is whole seconds), floored.
        let frac = (micros % 1_000_000 + 1_000_000) % 1_000_000
        time.appendText(.rfc3339(digits: frac % 1000 == 0 ? 3 : 6, utc: time.offsetSeconds == 0), into: &out)
    }

    /// `v` in decimal, zeros in front up to `width` digits.
    static func append(_ v: Int64, width: Int, _ out: inout [UInt8]) {
        var text = v
        var digits = 1
        while text >= 10 { text /= 10; digits += 1 }
        guard v >= 0 else {
            // Only out-of-range dates: as `String(v)` with zeros in front.
            let s = Array(String(v).utf8)
            out.append(contentsOf: repeatElement(0x30, count: max(0, width - s.count)))
            out.append(contentsOf: s)
            return
        }
        out.append(contentsOf: repeatElement(0x30, count: max(0, width - digits)))
        let end = out.count + digits
        out.append(contentsOf: repeatElement(0x30, count: digits))
        var x = v, i = end - 1
        repeat {
            out[i] = UInt8(48 + x % 10)
            x /= 10
            i -= 1
        } while x > 0
    }

    /// The wall-clock reading at a UTC offset: days since 1970-01-01, seconds into that day
    /// and the microseconds past that second, each floored (right for times before 1970 too).
    public static func wallClock(micros: Int64, offsetSeconds: Int64) -> (days: Int64, secondOfDay: Int64, micros: Int64) {
        let local = micros + offsetSeconds * 1_000_000
        var secs = local / 1_000_000
        var frac = local % 1_000_000
        if frac < 0 { frac += 1_000_000; secs -= 1 }
        var days = secs / 86_400
        var rem = secs % 86_400
        if rem < 0 { rem += 86_400; days -= 1 }
        return (days, rem, frac)
    }

    /// The calendar day (UTC) as `YYYY-MM-DD`.
    public var utcDay: String {
        let (days, _, _) = Timestamp.wallClock(micros: micros, offsetSeconds: 0)
        let (y, m, d) = Timestamp.civil(fromDays: days)
        // Years 0...9999 written digit by digit (asked once or twice per journey folded);
        // any other the way `rfc3339` writes it (the date is all before its `T`).
        guard (0...9999).contains(y) else { return String(rfc3339(utc: true).prefix { $0 != "T" }) }
        func digit(_ v: Int64) -> UInt8 { UInt8(truncatingIfNeeded: v) &+ 0x30 }
        let dash: UInt8 = 0x2D
        let text: [UInt8] = [digit(y / 1000), digit(y / 100 % 10), digit(y / 10 % 10), digit(y % 10), dash,
                             digit(m / 10), digit(m % 10), dash, digit(d / 10), digit(d % 10)]
        return String(decoding: text, as: UTF8.self)
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }

    /// Parses RFC 3339 (`2026-10-03T14:22:01.123+02:00`, `…Z`, `t`/space separator accepted,
    /// any number of fraction digits, truncated to microseconds). A date alone
    /// (`2026-10-03`) is midnight UTC. Returns nil for anything else, including impossible
    /// dates such as February 30.
    public static func parse(_ text: String) -> Timestamp? {
        var utf8 = Array(text.utf8)
        return utf8.withUnsafeMutableBufferPointer { parse(bytes: UnsafeBufferPointer($0)) }
    }

    public static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        var date = LastDate()
        return parse(bytes: b, lastDate: &date)
    }

    /// The date (a text's first ten bytes) `parse(bytes:lastDate:)` read last and its day
    /// number: the next text of the same date skips the date's reading and checks.
    package struct LastDate {
        var head: UInt64 = 0
        var tail: UInt16 = 0
        var day: Int64 = 0
        var known = false

        package init() {}
    }

    /// `parse(bytes:)`, reading the date from `lastDate` when the text's is the same (lines
    /// of a log are mostly of a few days), and keeping the text's date there. Fixed fields
    /// are read a word at a time (`digitPairs`): the date's first eight bytes and its day,
    /// the time's eight bytes, the fraction's first eight and the offset as the last bytes.
    package static func parse(bytes b: UnsafeBufferPointer<UInt8>, lastDate: inout LastDate) -> Timestamp? {
        let n = b.count
        guard n >= 10, let p = b.baseAddress else { return nil }
        let raw = UnsafeRawPointer(p)
        let (head, tail) = dateWords(raw)
        let dayNumber: Int64
        if lastDate.known, lastDate.head == head, lastDate.tail == tail {
            dayNumber = lastDate.day
        } else {
            guard let date = datePairs(head), let days = dayPairs(tail) else { return nil }
            let year = Int64(date & 0xFF) * 100 + Int64(date >> 16 & 0xFF)
            let month = Int64(date >> 40 & 0xFF), day = Int64(days & 0xFF)
            guard month >= 1, month <= 12, day >= 1, day <= daysIn(month: month, year: year) else { return nil }
            dayNumber = Timestamp.days(year: year, month: month, day: day)
            lastDate.head = head
            lastDate.tail = tail
            lastDate.day = dayNumber
            lastDate.known = true
        }
        if n == 10 { return Timestamp(micros: dayNumber &* 86_400_000_000, offsetSeconds: 0) }
        guard n >= 20, p[10] == 84 || p[10] == 116 || p[10] == 32 else { return nil }
        guard let time = clockPairs(raw) else { return nil }
        let hh = Int64(time & 0xFF), mm = Int64(time >> 24 & 0xFF), ss = Int64(time >> 48 & 0xFF)
        guard hh <= 23, mm <= 59, ss <= 60 else { return nil }
        var i = 19
        var fraction: Int64 = 0
        if p[i] == 46 {
            i += 1
            guard n > 20 else { return nil }
            // The eight bytes from 20, zeros past the text's end (no digit).
            let word = n >= 28
                ? UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 20, as: UInt64.self))
                : UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)) >> UInt64(8 * (28 - n))
            let x = word ^ 0x3030_3030_3030_3030
            let count = ((x | (x &+ 0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080).trailingZeroBitCount >> 3
            guard count > 0 else { return nil }
            // The first six digits, zeros after the last; their pairs, then the three pairs.
            let six = x & (count >= 6 ? 0xFFFF_FFFF_FFFF : (1 << UInt64(8 * count)) &- 1)
            let pairs = six &* 10 &+ six >> 8
            fraction = Int64(pairs & 0xFF) * 10_000 + Int64(pairs >> 16 & 0xFF) * 100 + Int64(pairs >> 32 & 0xFF)
            i += count
            // Digits past the eighth are read and dropped.
            if count == 8 { while i < n, p[i] &- 48 < 10 { i += 1 } }
        }
        guard i < n else { return nil }
        var offset: Int64 = 0
        if p[i] == 90 || p[i] == 122 {
            guard i + 1 == n else { return nil }
        } else if p[i] == 43 || p[i] == 45 {
            guard i + 6 == n, let zone = zonePairs(raw, count: n) else { return nil }
            let oh = Int64(zone & 0xFF), om = Int64(zone >> 24 & 0xFF)
            guard oh <= 23, om <= 59 else { return nil }
            let seconds = oh &* 3600 &+ om &* 60
            offset = p[i] == 45 ? 0 &- seconds : seconds
        } else {
            return nil
        }
        // Wrapping arithmetic: a four-digit year's microseconds are far inside Int64.
        let local = dayNumber &* 86_400 &+ hh &* 3600 &+ mm &* 60 &+ min(ss, 59)
        let utc = local &- offset
        return Timestamp(micros: utc &* 1_000_000 &+ fraction, offsetSeconds: Int32(truncatingIfNeeded: offset))
    }

    /// A text's first eight bytes and the two after them (the date `YYYY-MM-DD`), as words:
    /// what `datePairs` and `dayPairs` read, and what `LastDate` keeps.
    @inline(__always)
    static func dateWords(_ raw: UnsafeRawPointer) -> (head: UInt64, tail: UInt16) {
        (UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)),
         UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self)))
    }

    /// `YYYY-MM-` (`head`, `dateWords`'s): the year's pairs at bytes 0 and 2, the month's at 5.
    @inline(__always)
    static func datePairs(_ head: UInt64) -> UInt64? {
        digitPairs(head, text: 0x2D30_302D_3030_3030, digits: 0x00FF_FF00_FFFF_FFFF)
    }

    /// `DD` (`tail`, `dateWords`'s): the day's pair at byte 0.
    @inline(__always)
    static func dayPairs(_ tail: UInt16) -> UInt64? {
        digitPairs(UInt64(tail), text: 0x3030, digits: 0xFFFF)
    }

    /// `HH:MM:SS` from byte 11 of a text of at least 19 bytes at `raw`: the pairs at its
    /// bytes 0, 3 and 6.
    @inline(__always)
    static func clockPairs(_ raw: UnsafeRawPointer) -> UInt64? {
        digitPairs(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 11, as: UInt64.self)),
                   text: 0x3030_3A30_303A_3030, digits: 0xFFFF_00FF_FF00_FFFF)
    }

    /// `HH:MM`, the last five of the `n` bytes (at least eight) at `raw`, an offset's: the
    /// pairs at its bytes 0 and 3 (the last eight's bytes 3 to 7).
    @inline(__always)
    static func zonePairs(_ raw: UnsafeRawPointer, count n: Int) -> UInt64? {
        digitPairs(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)) >> 24,
                   text: 0x30_303A_3030, digits: 0xFF_FF00_FFFF)
    }

    /// The two-digit numbers of `w`, eight bytes of text (the first in its lowest), when its
    /// bytes are `text`'s but for a digit at each byte `digits` marks: each pair's value (ten
    /// times its first digit plus its second) in its first digit's byte. Nil when a byte
    /// differs. Lane-wise: a byte of `w ^ text` is 0...9 for a digit and 0 for any other, and
    /// adding 0x76 (0x7F) sets its high bit exactly when it is beyond; a byte of 0x80 or
    /// above has it already, and below that no byte carries into the next.
    @inline(__always)
    static func digitPairs(_ w: UInt64, text: UInt64, digits: UInt64) -> UInt64? {
        let x = w ^ text
        let limits = 0x7F7F_7F7F_7F7F_7F7F &- digits & 0x0909_0909_0909_0909
        guard (x | (x &+ limits)) & 0x8080_8080_8080_8080 == 0 else { return nil }
        return x &* 10 &+ x >> 8
    }

    /// The days in `month` (1–12) of `year` (proleptic Gregorian).
    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
