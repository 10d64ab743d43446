import FunnelModel

/// A syntax error in JSON text: the byte offset (0-based) where it was found and what was
/// expected there.
public struct JSONSyntaxError: Error, Sendable, Hashable {
    public var offset: Int
    public var message: String
}

/// A strict RFC 8259 JSON scanner over UTF-8 bytes. It validates (`skipValue`) or builds
/// `JSONValue`s (`parseValue`) without Foundation. The bytes must already be valid UTF-8
/// (see `UTF8Check`); the scanner only checks the JSON grammar.
///
/// Rejected, as RFC 8259 demands: trailing commas, single quotes, comments, NaN/Infinity,
/// leading zeros, control characters inside strings, unknown escapes. A lone surrogate
/// escape (`"\ud83d"`) is accepted, as most parsers do, and decodes to U+FFFD.
struct JSONScanner {
    let b: UnsafeBufferPointer<UInt8>
    var i: Int
    var depth = 0
    static let maxDepth = 512
    /// What a lone surrogate escape decodes to: U+FFFD REPLACEMENT CHARACTER.
    static let replacement: UInt32 = 0xFFFD

    init(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int = 0) {
        b = bytes
        i = start
    }

    @inline(__always) mutating func skipWhitespace() {
        while i < b.count {
            let c = b[i]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { i += 1 } else { return }
        }
    }

    @inline(__always) func fail(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset ?? i, message: message)
    }

    /// The byte at the cursor, or nil at the end.
    @inline(__always) var peek: UInt8? { i < b.count ? b[i] : nil }

    @inline(__always) mutating func expect(_ c: UInt8, _ what: StaticString) throws {
        guard i < b.count, b[i] == c else { throw missing(what) }
        i += 1
    }

    private func missing(_ what: StaticString) -> JSONSyntaxError {
        fail(i < b.count ? "expected \(what)" : "unexpected end of line, expected \(what)")
    }

    // MARK: strings

    /// Scans a string literal starting at the opening quote. Returns the range of its raw
    /// content (between the quotes) and whether it holds escapes. With `decodeInto`, the
    /// decoded content of an escaped string is appended to that buffer.
    mutating func scanString(decodeInto out: UnsafeMutablePointer<[UInt8]>?) throws -> (start: Int, end: Int, escaped: Bool) {
        try expect(0x22, "a string")
        let start = i
        var escaped = false
        while true {
            // Eight bytes at a time while none is a quote, a backslash or a control character
            // (and not inside an escaped string, whose bytes are copied one by one).
            if !escaped, let base = b.baseAddress {
                while i + 8 <= b.count {
                    let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                    if JSONScanner.hasSpecialByte(w) { break }
                    i += 8
                }
            }
            guard i < b.count else { throw fail("unterminated string") }
            let c = b[i]
            if c == 0x22 { break }
            if c < 0x20 { throw fail("control character in string") }
            if c == 0x5C {
                if !escaped, let out {
                    out.pointee.append(contentsOf: UnsafeBufferPointer(rebasing: b[start..<i]))
                }
                escaped = true
                try scanEscape(into: out)
                continue
            }
            if escaped, let out { out.pointee.append(c) }
            i += 1
        }
        let end = i
        i += 1
        return (start, end, escaped)
    }

    /// Whether any byte of `w` is `"` (0x22), `\\` (0x5C) or below 0x20 (bytes of 0x80 and
    /// above count as ordinary: the line is valid UTF-8 already).
    @inline(__always)
    static func hasSpecialByte(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // A byte of x is zero exactly when the byte of w equals the pattern's; `hasZero` is
        // exact for the lowest such byte and may flag higher ones only above a true zero.
        @inline(__always) func hasZero(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        let quote = hasZero(w ^ (ones &* 0x22))
        let backslash = hasZero(w ^ (ones &* 0x5C))
        // Bytes below 0x20: subtracting 0x20 borrows into the high bit (ASCII bytes only).
        let control = (w &- ones &* 0x20) & ~w & highs
        return (quote | backslash | control) != 0
    }

    private func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case 0x30...0x39: return UInt32(c - 0x30)
        case 0x41...0x46: return UInt32(c - 0x41 + 10)
        case 0x61...0x66: return UInt32(c - 0x61 + 10)
        default: return nil
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard i + 4 <= b.count else { throw fail("incomplete \\u escape") }
        var v: UInt32 = 0
        for k in 0..<4 {
            guard let h = hexValue(b[i + k]) else { throw fail("invalid \\u escape", at: i + k) }
            v = v << 4 | h
        }
        i += 4
        return v
    }

    /// At a backslash: checks one escape and appends its UTF-8 to `out`.
    private mutating func scanEscape(into out: UnsafeMutablePointer<[UInt8]>?) throws {
        i += 1
        guard i < b.count else { throw fail("unterminated escape") }
        let c = b[i]
        var scalar: UInt32
        switch c {
        case 0x22: scalar = 0x22
        case 0x5C: scalar = 0x5C
        case 0x2F: scalar = 0x2F
        case 0x62: scalar = 0x08
        case 0x66: scalar = 0x0C
        case 0x6E: scalar = 0x0A
        case 0x72: scalar = 0x0D
        case 0x74: scalar = 0x09
        case 0x75:
            i += 1
            scalar = try hex4()
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                // A high surrogate pairs with the low one escaped right after it; alone (a
                // string cut through an emoji, as JSON.stringify writes it) it decodes to
                // U+FFFD, and whatever follows is read on its own.
                let high = scalar
                scalar = JSONScanner.replacement
                if i + 6 <= b.count, b[i] == 0x5C, b[i + 1] == 0x75 {
                    let resume = i
                    i += 2
                    let low = try hex4()
                    if low >= 0xDC00 && low <= 0xDFFF {
                        scalar = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        i = resume
                    }
                }
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                scalar = JSONScanner.replacement
            }
            if let out { JSONScanner.appendUTF8(scalar, to: &out.pointee) }
            return
        default:
            throw fail("invalid escape")
        }
        i += 1
        if let out { out.pointee.append(UInt8(scalar)) }
    }

    static func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
        switch v {
        case 0..<0x80: out.append(UInt8(v))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (v >> 6)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (v >> 12)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (v >> 18)))
            out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    /// Scans a string and returns its decoded value.
    mutating func parseString() throws -> String {
        var scratch: [UInt8] = []
        let r = try withUnsafeMutablePointer(to: &scratch) { try scanString(decodeInto: $0) }
        if r.escaped { return String(decoding: scratch, as: UTF8.self) }
        return String(decoding: UnsafeBufferPointer(rebasing: b[r.start..<r.end]), as: UTF8.self)
    }

    // MARK: numbers and literals

    /// Scans a number per the RFC 8259 grammar; returns its range.
    mutating func scanNumber() throws -> Range<Int> {
        let start = i
        if peek == 0x2D { i += 1 }
        guard let first = peek, first >= 0x30, first <= 0x39 else { throw fail("invalid number") }
        i += 1
        if first != 0x30 {
            while let c = peek, c >= 0x30, c <= 0x39 { i += 1 }
        } else if let c = peek, c >= 0x30, c <= 0x39 {
            throw fail("leading zero in number")
        }
        if peek == 0x2E {
            i += 1
            guard let c = peek, c >= 0x30, c <= 0x39 else { throw fail("expected a digit after the decimal point") }
            while let c = peek, c >= 0x30, c <= 0x39 { i += 1 }
        }
        if peek == 0x65 || peek == 0x45 {
            i += 1
            if peek == 0x2B || peek == 0x2D { i += 1 }
            guard let c = peek, c >= 0x30, c <= 0x39 else { throw fail("expected a digit in the exponent") }
            while let c = peek, c >= 0x30, c <= 0x39 { i += 1 }
        }
        return start..<i
    }

    private mutating func literal(_ word: StaticString) throws {
        let n = word.utf8CodeUnitCount
        let p = word.utf8Start
        guard i + n <= b.count else { throw fail("invalid literal") }
        for k in 0..<n where b[i + k] != p[k] { throw fail("invalid literal", at: i + k) }
        i += n
    }

    // MARK: values

    /// Validates one value (after optional leading whitespace) and moves past it.
    mutating func skipValue() throws {
        skipWhitespace()
        guard let c = peek else { throw fail("unexpected end of line, expected a value") }
        switch c {
        case 0x7B:
            depth += 1
            guard depth <= JSONScanner.maxDepth else { throw fail("nested deeper than \(JSONScanner.maxDepth) levels") }
            i += 1
            skipWhitespace()
            if peek == 0x7D { i += 1; depth -= 1; return }
            while true {
                skipWhitespace()
                _ = try scanString(decodeInto: nil)
                skipWhitespace()
                try expect(0x3A, "':'")
                try skipValue()
                skipWhitespace()
                if peek == 0x2C { i += 1; continue }
                try expect(0x7D, "',' or '}'")
                break
            }
            depth -= 1
        case 0x5B:
            depth += 1
            guard depth <= JSONScanner.maxDepth else { throw fail("nested deeper than \(JSONScanner.maxDepth) levels") }
            i += 1
            skipWhitespace()
            if peek == 0x5D { i += 1; depth -= 1; return }
            while true {
                try skipValue()
                skipWhitespace()
                if peek == 0x2C { i += 1; continue }
                try expect(0x5D, "',' or ']'")
                break
            }
            depth -= 1
        case 0x22: _ = try scanString(decodeInto: nil)
        case 0x74: try literal("true")
        case 0x66: try literal("false")
        case 0x6E: try literal("null")
        case 0x2D, 0x30...0x39: _ = try scanNumber()
        default: throw fail("expected a value")
        }
    }

    /// Parses one value (after optional leading whitespace) into a `JSONValue`.
    mutating func parseValue() throws -> JSONValue {
        skipWhitespace()
        guard let c = peek else { throw fail("unexpected end of line, expected a value") }
        switch c {
        case 0x7B:
            depth += 1
            guard depth <= JSONScanner.maxDepth else { throw fail("nested deeper than \(JSONScanner.maxDepth) levels") }
            i += 1
            var fields: [String: JSONValue] = [:]
            skipWhitespace()
            if peek == 0x7D { i += 1; depth -= 1; return .object(fields) }
            while true {
                skipWhitespace()
                let key = try parseString()
                skipWhitespace()
                try expect(0x3A, "':'")
                fields[key] = try parseValue()
                skipWhitespace()
                if peek == 0x2C { i += 1; continue }
                try expect(0x7D, "',' or '}'")
                break
            }
            depth -= 1
            return .object(fields)
        case 0x5B:
            depth += 1
            guard depth <= JSONScanner.maxDepth else { throw fail("nested deeper than \(JSONScanner.maxDepth) levels") }
            i += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if peek == 0x5D { i += 1; depth -= 1; return .array(items) }
            while true {
                items.append(try parseValue())
                skipWhitespace()
                if peek == 0x2C { i += 1; continue }
                try expect(0x5D, "',' or ']'")
                break
            }
            depth -= 1
            return .array(items)
        case 0x22: return .string(try parseString())
        case 0x74: try literal("true"); return .bool(true)
        case 0x66: try literal("false"); return .bool(false)
        case 0x6E: try literal("null"); return .null
        case 0x2D, 0x30...0x39:
            let r = try scanNumber()
            return .number(String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self))
        default: throw fail("expected a value")
        }
    }
}

/// UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
public enum UTF8Check {
    /// The offset of the first byte of the first invalid sequence, or nil when valid.
    public static func firstInvalid(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        let n = b.count
        guard let base = b.baseAddress else { return nil }
        var i = 0
        while i < n {
            // ASCII fast path, eight bytes at a time.
            while i + 8 <= n {
                let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if w & 0x8080_8080_8080_8080 != 0 { break }
                i += 8
            }
            guard i < n else { return nil }
            let c = b[i]
            if c < 0x80 { i += 1; continue }
            var need: Int
            var lo: UInt8 = 0x80
            var hi: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: need = 1
            case 0xE0: need = 2; lo = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: need = 2
            case 0xED: need = 2; hi = 0x9F
            case 0xF0: need = 3; lo = 0x90
            case 0xF1...0xF3: need = 3
            case 0xF4: need = 3; hi = 0x8F
            default: return i
            }
            guard i + need < n else { return i }
            let c1 = b[i + 1]
            guard c1 >= lo, c1 <= hi else { return i }
            var k = 2
            while k <= need {
                let ck = b[i + k]
                guard ck >= 0x80, ck <= 0xBF else { return i }
                k += 1
            }
            i += need + 1
        }
        return nil
    }
}

extension UTF8Check {
    /// The length of the valid UTF-8 sequence starting at `i`, or nil.
    public static func sequenceLength(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Int? {
        let c = b[i]
        let need: Int
        switch c {
        case 0..<0x80: return 1
        case 0xC2...0xDF: need = 2
        case 0xE0...0xEF: need = 3
        case 0xF0...0xF4: need = 4
        default: return nil
        }
        guard i + need <= b.count else { return nil }
        return firstInvalid(UnsafeBufferPointer(rebasing: b[i..<(i + need)])) == nil ? need : nil
    }
}
