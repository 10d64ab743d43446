extension Timestamp {
    /// How an RFC 3339 text writes its time: separator, fraction digits and zone. With the
    /// time `parse(bytes:)` reads from the text, the form writes the text again byte for byte
    /// (`appendText(_:into:)`), so a store can keep a line's time text as one byte.
    public struct TextForm: Sendable, Hashable {
        /// 1...127: one varint byte; 0 is left for "no form" in stored formats.
        public let code: UInt8

        /// The fraction's digits (0: no fraction), the separator's index (`T`, `t`, a space)
        /// and the zone's (`Z`, `z`, a `±hh:mm` offset, `-00:00`).
        private init(digits: Int, separator: Int, zone: Int) {
            code = UInt8(1 + digits + separator << 3 + zone << 5)
        }

        /// The form of `code`, nil when no form has that code.
        public init?(code: UInt8) {
            let v = Int(code) - 1
            guard v >= 0, v & 7 <= 6, (v >> 3) & 3 < 3, v >> 5 <= 3 else { return nil }
            self.code = code
        }

        var digits: Int { Int(code - 1) & 7 }
        /// `T`, `t` or a space.
        var separator: UInt8 {
            switch (Int(code - 1) >> 3) & 3 {
            case 0: 0x54
            case 1: 0x74
            default: 0x20
            }
        }
        var zone: Int { Int(code - 1) >> 5 }

        static let offsetZone = 2, negativeZeroZone = 3

        /// The form `Timestamp.rfc3339` writes: `T`, `digits` fraction digits, and `Z` when
        /// `utc`, else the offset.
        static func rfc3339(digits: Int, utc: Bool) -> TextForm {
            TextForm(digits: digits, separator: 0, zone: utc ? 0 : offsetZone)
        }

        /// The form of `b` when it is RFC 3339 text the form writes again from the time it
        /// parses to: date, `T`, `t` or space, time of at most 59 seconds, at most six fraction
        /// digits, and `Z`, `z` or `±hh:mm`. Nil for anything else (a leap second, more
        /// digits than microseconds keep, an escape), which a store keeps as it is.
        public static func of(_ b: UnsafeBufferPointer<UInt8>) -> TextForm? {
            let n = b.count
            guard n >= 20, let p = b.baseAddress else { return nil }
            func digit(_ i: Int) -> Bool { p[i] &- 48 < 10 }
            // `YYYY-MM-`, `DD` and `HH:MM:SS` a word at a time, as `parse` reads them.
            let raw = UnsafeRawPointer(p)
            let (head, tail) = dateWords(raw)
            guard datePairs(head) != nil, dayPairs(tail) != nil, clockPairs(raw) != nil, p[17] <= 0x35 else { return nil }
            let separator: Int
            switch p[10] {
            case 0x54: separator = 0
            case 0x74: separator = 1
            case 0x20: separator = 2
            default: return nil
            }
            var i = 19, digits = 0
            if p[i] == 0x2E {
                i += 1
                while i < n, digit(i) { digits += 1; i += 1 }
                guard (1...6).contains(digits) else { return nil }
            }
            guard i < n else { return nil }
            switch p[i] {
            case 0x5A, 0x7A:
                guard i + 1 == n else { return nil }
                return TextForm(digits: digits, separator: separator, zone: p[i] == 0x5A ? 0 : 1)
            case 0x2B, 0x2D:
                // `HH:MM`, as `parse` reads it; all zeros: pairs 0.
                guard i + 6 == n, let zone = zonePairs(raw, count: n) else { return nil }
                return TextForm(digits: digits, separator: separator, zone: p[i] == 0x2D && zone == 0 ? negativeZeroZone : offsetZone)
            default:
                return nil
            }
        }
    }

    /// Appends the text `form` writes for this time: its wall clock at its own offset.
    public func appendText(_ form: TextForm, into out: inout [UInt8]) {
        let offset = Int64(offsetSeconds)
        let (days, rem, frac) = Timestamp.wallClock(micros: micros, offsetSeconds: offset)
        let (y, m, d) = Timestamp.civil(fromDays: days)
        // A year outside 0...9999 (an out-of-range time, never a parsed text's) in full.
        let fourDigitYear = (0...9999).contains(y)
        if !fourDigitYear { Timestamp.append(y, width: 4, &out) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { room in
            guard let base = room.baseAddress else { return }
            var at = 0
            func put(_ byte: UInt8) { base[at] = byte; at += 1 }
            func two(_ v: Int64) { put(UInt8(truncatingIfNeeded: v / 10 % 10) &+ 48); put(UInt8(truncatingIfNeeded: v % 10) &+ 48) }
            if fourDigitYear { two(y / 100); two(y % 100) }
            put(0x2D); two(m); put(0x2D); two(d)
            put(form.separator)
            two(rem / 3600); put(0x3A); two(rem / 60 % 60); put(0x3A); two(rem % 60)
            if form.digits > 0 {
                put(0x2E)
                var scale: Int64 = 100_000
                for _ in 0..<form.digits {
                    put(UInt8(truncatingIfNeeded: frac / scale % 10) &+ 48)
                    scale /= 10
                }
            }
            switch form.zone {
            case 0: put(0x5A)
            case 1: put(0x7A)
            default:
                let a = abs(offset)
                put(offset < 0 || form.zone == TextForm.negativeZeroZone ? 0x2D : 0x2B)
                two(a / 3600); put(0x3A); two(a / 60 % 60)
            }
            out.append(contentsOf: UnsafeBufferPointer(start: base, count: at))
        }
    }
}
