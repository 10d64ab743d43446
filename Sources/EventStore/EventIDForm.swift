import FunnelModel

/// How a stored body keeps an event id (`LineShape.Field.formedID`): an id of hex digits as
/// the bytes they spell, a UUID as its 16 bytes, any other as its text. Its first varint
/// says which, so the id comes back byte for byte.
enum EventIDForm: UInt8 {
    /// Then the text's length and bytes.
    case text = 0
    /// Then the byte count and the bytes of an even number of lower- or upper-case hex digits.
    case lowerHex, upperHex
    /// Then the 16 bytes of a UUID written `8-4-4-4-12` in lower or upper case.
    case lowerUUID, upperUUID

    /// The longest hex id kept as bytes (its byte count one varint byte).
    static let maxHexBytes = 127

    /// Writes the kept form of `id` at `at` (room for `Varint.maxBytes` and the id's length
    /// more), moving `at` past it.
    static func write(_ id: UnsafeBufferPointer<UInt8>, to at: inout UnsafeMutablePointer<UInt8>) {
        // The table read through one pointer: a static's every read checks that it is made.
        hexTable.withUnsafeBufferPointer { t in
            let form = of(id, table: t)
            at += Varint.write(UInt64(form.rawValue), to: at)
            switch form {
            case .text:
                at += Varint.write(UInt64(id.count), to: at)
                if let base = id.baseAddress { at.update(from: base, count: id.count) }
                at += id.count
            case .lowerHex, .upperHex:
                at += Varint.write(UInt64(id.count / 2), to: at)
                packHex(id, from: 0, to: id.count, at: &at, table: t)
            case .lowerUUID, .upperUUID:
                packHex(id, from: 0, to: 8, at: &at, table: t)
                packHex(id, from: 9, to: 13, at: &at, table: t)
                packHex(id, from: 14, to: 18, at: &at, table: t)
                packHex(id, from: 19, to: 23, at: &at, table: t)
                packHex(id, from: 24, to: 36, at: &at, table: t)
            }
        }
    }

    /// Appends the id kept at `i` of `body` to `out`, moving `i` past it; false when the
    /// body ends inside it or its form is not one.
    static func read(_ body: UnsafeRawBufferPointer, at i: inout Int, into out: inout [UInt8]) -> Bool {
        guard let code = Varint.read(body, at: &i), code <= UInt8.max, let form = EventIDForm(rawValue: UInt8(code)) else { return false }
        let bytes: Int
        switch form {
        case .text, .lowerHex, .upperHex:
            guard let n = Varint.read(body, at: &i), n <= UInt64(body.count - i) else { return false }
            bytes = Int(n)
        case .lowerUUID, .upperUUID:
            bytes = 16
            guard body.count - i >= bytes else { return false }
        }
        let digits = form == .upperHex || form == .upperUUID ? upperDigits : lowerDigits
        switch form {
        case .text:
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: body[i..<(i + bytes)]))
        case .lowerHex, .upperHex:
            for k in i..<(i + bytes) { out.append(digits[Int(body[k] >> 4)]); out.append(digits[Int(body[k] & 15)]) }
        case .lowerUUID, .upperUUID:
            for k in 0..<16 {
                if k == 4 || k == 6 || k == 8 || k == 10 { out.append(0x2D) }
                out.append(digits[Int(body[i + k] >> 4)]); out.append(digits[Int(body[i + k] & 15)])
            }
        }
        i += bytes
        return true
    }

    /// The form that keeps `id` in the fewest bytes.
    static func of(_ id: UnsafeBufferPointer<UInt8>) -> EventIDForm {
        hexTable.withUnsafeBufferPointer { of(id, table: $0) }
    }

    /// `of(_:)` with `hexTable` at hand.
    private static func of(_ id: UnsafeBufferPointer<UInt8>, table t: UnsafeBufferPointer<UInt8>) -> EventIDForm {
        let n = id.count
        if n == 36, id[8] == 0x2D, id[13] == 0x2D, id[18] == 0x2D, id[23] == 0x2D {
            let cases = hexCases(id, from: 0, to: 8, table: t) | hexCases(id, from: 9, to: 13, table: t)
                | hexCases(id, from: 14, to: 18, table: t) | hexCases(id, from: 19, to: 23, table: t)
                | hexCases(id, from: 24, to: 36, table: t)
            if cases < 3 { return cases == 2 ? .upperUUID : .lowerUUID }
        }
        guard n >= 2, n % 2 == 0, n / 2 <= maxHexBytes else { return .text }
        let cases = hexCases(id, from: 0, to: n, table: t)
        guard cases < 3 else { return .text }
        return cases == 2 ? .upperHex : .lowerHex
    }

    private static let lowerDigits = Array("0123456789abcdef".utf8)
    private static let upperDigits = Array("0123456789ABCDEF".utf8)
    /// Per byte: 0 a digit, 1 a lower-case hex letter, 2 an upper-case one, 4 any other byte;
    /// and in the high nibble the digit's value. A table: hex ids mix digits and letters at
    /// random, which branches would mispredict.
    private static let hexTable: [UInt8] = (0...255).map { (c: Int) -> UInt8 in
        switch c {
        case 0x30...0x39: UInt8(c - 0x30) << 4
        case 0x61...0x66: UInt8(c - 0x61 + 10) << 4 | 1
        case 0x41...0x46: UInt8(c - 0x41 + 10) << 4 | 2
        default: 4
        }
    }

    /// Which letters `id[start..<end]` has, or'ed: 1 lower-case hex, 2 upper-case hex, 4 a
    /// byte that is not a hex digit (digits alone: 0).
    @inline(__always)
    private static func hexCases(_ id: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
                                 table t: UnsafeBufferPointer<UInt8>) -> UInt8 {
        var cases: UInt8 = 0
        for k in start..<end { cases |= t[Int(id[k])] }
        return cases & 7
    }

    /// Writes the bytes the hex digits `id[start..<end]` spell (an even number) at `at`.
    @inline(__always)
    private static func packHex(_ id: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, at: inout UnsafeMutablePointer<UInt8>,
                                table t: UnsafeBufferPointer<UInt8>) {
        var k = start
        while k < end {
            at.pointee = t[Int(id[k])] & 0xF0 | t[Int(id[k + 1])] >> 4
            at += 1
            k += 2
        }
    }
}
