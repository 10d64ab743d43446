import FunnelModel

/// Appends the pieces of an event line to a byte buffer without Foundation: the simulator
/// writes millions of lines, so JSON is built by hand (strings escaped by
/// `JSONValue.writeString`, pre-encoded where they repeat).
enum LineBuilder {
    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The JSON string literal of `s`, as bytes.
    static func quoted(_ s: String) -> [UInt8] {
        var out = ""
        JSONValue.writeString(s, into: &out)
        return Array(out.utf8)
    }

    /// 16 lower-case hex digits.
    @inline(__always)
    static func appendHex(_ v: UInt64, into buf: inout [UInt8]) {
        var shift: UInt64 = 60
        while true {
            buf.append(hexDigits[Int((v >> shift) & 0xF)])
            if shift == 0 { break }
            shift -= 4
        }
    }

    /// A version 4 UUID, `8-4-4-4-12` lower-case hex digits, holding every bit of `high` (so
    /// distinct highs give distinct UUIDs) around the version and variant bits, and the rest
    /// from `low`.
    static func appendUUID(_ high: UInt64, _ low: UInt64, into buf: inout [UInt8]) {
        let a = (high >> 16) << 16 | 0x4000 | (high >> 4) & 0xFFF
        let b = 0b10 << 62 | (high & 0x3) << 60 | (high >> 2 & 0x3) << 58 | low & 0x03FF_FFFF_FFFF_FFFF
        var digits: [UInt8] = []
        digits.reserveCapacity(32)
        appendHex(a, into: &digits)
        appendHex(b, into: &digits)
        for (i, d) in digits.enumerated() {
            if i == 8 || i == 12 || i == 16 || i == 20 { buf.append(45) }
            buf.append(d)
        }
    }

    @inline(__always)
    static func appendDigits(_ v: Int64, width: Int, into buf: inout [UInt8]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0)
        var x = v
        withUnsafeMutableBytes(of: &digits) { d in
            for i in stride(from: width - 1, through: 0, by: -1) {
                d[i] = UInt8(48 + x % 10)
                x /= 10
            }
            for i in 0..<width { buf.append(d[i]) }
        }
    }

    /// `YYYY-MM-DD` for a day number (days since 1970-01-01).
    static func day(_ dayNumber: Int64) -> String {
        let (y, m, d) = Timestamp.civil(fromDays: dayNumber)
        var buf: [UInt8] = []
        appendDigits(y, width: 4, into: &buf)
        buf.append(45)
        appendDigits(m, width: 2, into: &buf)
        buf.append(45)
        appendDigits(d, width: 2, into: &buf)
        return String(decoding: buf, as: UTF8.self)
    }
}
