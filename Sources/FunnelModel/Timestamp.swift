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
    /// of a log are mostly of a few days), and keeping the text's date there.
    package static func parse(bytes b: UnsafeBufferPointer<UInt8>, lastDate: inout LastDate) -> Timestamp? {
        let n = b.count
        guard n >= 10, let p = b.baseAddress else { return nil }
        // The two digits at `i` as a number, or -1 when either is not a digit (the caller
        // has checked that both bytes are in the text).
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
            guard day <= daysIn(month: month, year: year) else { return nil }
            dayNumber = days(year: year, month: month, day: day)
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

    /// The days in `month` (1–12) of `year` (proleptic Gregorian).
    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
