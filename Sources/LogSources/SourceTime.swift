import FunnelModel

extension SourceDefinition.TimeFormat {
    /// The time a vendor value stands for, or nil when it is not one in this format. ISO 8601
    /// keeps the written offset; the others are UTC (offset 0).
    public func time(_ value: JSONValue) -> Timestamp? {
        switch (self, value) {
        case (.iso8601, .string(let text)):
            return text.utf8.count > 10 ? Timestamp.parse(text) : nil
        case (.sqlUTC, .string(let text)):
            // `YYYY-MM-DD HH:MM:SS[.fraction]`, nothing after: no offset, no `T`.
            let b = Array(text.utf8)
            guard b.count >= 19, b[10] == 0x20, b[19...].allSatisfy({ $0 == 0x2E || (0x30...0x39).contains($0) }) else { return nil }
            return Timestamp.parse(text + "Z")
        case (.unix, .number(let literal)):
            return Self.unixTime(literal)
        default:
            return nil
        }
    }

    /// A non-negative decimal literal (no exponent) as seconds, or milliseconds over 10^12.
    static func unixTime(_ literal: String) -> Timestamp? {
        var literal = literal
        return literal.withUTF8 { unixTime(bytes: $0) }
    }

    /// `unixTime` of a literal's bytes.
    static func unixTime(bytes b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        let dot = b.firstIndex(of: 0x2E) ?? b.count
        guard dot > 0, dot <= 16, b[..<dot].allSatisfy(isDigit) else { return nil }
        let fraction = b[min(dot + 1, b.count)...]
        guard dot == b.count || (!fraction.isEmpty && fraction.allSatisfy(isDigit)) else { return nil }
        let units = b[..<dot].reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
        let ms = units > 1_000_000_000_000
        // RFC 3339 writes four-digit years: a later time is no time (a digit lost from milliseconds).
        guard units <= Self.lastUnixMicros / (ms ? 1000 : 1_000_000) else { return nil }
        var part: Int64 = 0
        var taken = 0
        for c in fraction.prefix(ms ? 3 : 6) { part = part * 10 + Int64(c - 0x30); taken += 1 }
        for _ in taken..<(ms ? 3 : 6) { part *= 10 }
        return Timestamp(micros: ms ? units * 1000 + part : units * 1_000_000 + part)
    }

    /// 9999-12-31T23:59:59.999999Z in microseconds.
    static let lastUnixMicros: Int64 = 253_402_300_799_999_999

    /// The time as this format writes it: ISO 8601 in its own offset, SQL in UTC with
    /// microseconds, Unix in milliseconds (a fraction only for microseconds).
    public func value(_ time: Timestamp) -> JSONValue {
        switch self {
        case .iso8601:
            return .string(time.rfc3339())
        case .sqlUTC:
            let text = Timestamp(micros: time.micros).rfc3339(utc: true)   // YYYY-MM-DDTHH:MM:SS.fffZ
            let (_, _, micros) = Timestamp.wallClock(micros: time.micros, offsetSeconds: 0)
            let fraction = String(micros)
            return .string(String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(8)) + "."
                           + String(repeating: "0", count: 6 - fraction.count) + fraction)
        case .unix:
            let (ms, rest) = time.micros.quotientAndRemainder(dividingBy: 1000)
            guard rest != 0 else { return .number(String(ms)) }
            let r = String(abs(rest))
            return .number("\(ms)." + String(repeating: "0", count: 3 - r.count) + r)
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
