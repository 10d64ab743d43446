/// A strict RFC 8259 JSON scanner over UTF-8 bytes, the one JSON reader of funnel: event
/// lines (`EventDecoder`) and flow definition files (`parseDocument`). It validates
/// (`skipValue`) or builds `JSONValue`s (`parseValue`) without Foundation.
///
/// Rejected, as RFC 8259 demands: trailing commas, single quotes, comments, NaN/Infinity,
/// control characters inside strings, unknown escapes. What differs between the two kinds of
/// text is in `Rules`. Public and inlinable: ingest's hot path runs it from another module.
public struct JSONScanner {
    /// The text: on an event line, already valid UTF-8 (see `UTF8Check`); the scanner only
    /// checks the JSON grammar there.
    public let b: UnsafeBufferPointer<UInt8>
    /// The cursor: the offset of the next byte to read.
    public var i: Int
    /// The containers open at the cursor.
    public var depth = 0
    public let rules: Rules

    /// What an event line and a definition file read differently.
    public enum Rules: Sendable {
        /// One event line, read as most parsers read it: a lone surrogate escape
        /// (`"\ud83d"`) decodes to U+FFFD, a repeated key keeps its last value, containers
        /// nest to `maxDepth`, a leading zero is an error of its own; the bytes are valid
        /// UTF-8 already.
        case eventLine
        /// A definition file, read strictly: a lone surrogate, a repeated key and invalid
        /// UTF-8 in a string are errors, values nest fewer than `documentDepth` levels, and
        /// messages are worded for a place given by line and column.
        case document
    }

    /// The deepest an event line's containers nest.
    @inlinable public static var maxDepth: Int { 512 }
    /// A document's values nest fewer levels than this.
    @inlinable public static var documentDepth: Int { 200 }
    /// What a lone surrogate escape decodes to: U+FFFD REPLACEMENT CHARACTER.
    @inlinable static var replacement: UInt32 { 0xFFFD }

    @inlinable
    public init(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int = 0, rules: Rules = .eventLine) {
        b = bytes
        i = start
        self.rules = rules
    }

    @inlinable @inline(__always) public mutating func skipWhitespace() {
        while i < b.count {
            let c = b[i]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { i += 1 } else { return }
        }
    }

    /// The byte at the cursor, or nil at the end.
    @inlinable @inline(__always) public var peek: UInt8? { i < b.count ? b[i] : nil }

    /// Moves past `c`, or throws that `what` was expected at the cursor.
    @inlinable @inline(__always) public mutating func expect(_ c: UInt8, _ what: Expected) throws(JSONSyntaxError) {
        guard i < b.count, b[i] == c else { throw fail(.expected(what)) }
        i += 1
    }

    // MARK: strings

    /// Scans a string literal starting at the opening quote. Returns the range of its raw
    /// content (between the quotes) and whether it holds escapes. With `decodeInto`, the
    /// decoded content of an escaped string is appended to that buffer. A string without
    /// escapes is read here, inlined into the caller; any other goes on in `scanEscapedString`.
    @inlinable @inline(__always)
    public mutating func scanString(decodeInto out: UnsafeMutablePointer<[UInt8]>?) throws(JSONSyntaxError) -> (start: Int, end: Int, escaped: Bool) {
        try expect(0x22, .string)
        let start = i
        // Straight to the first quote, backslash or control byte.
        i = JSONScanner.specialByte(b, from: i)
        guard i < b.count, b[i] == 0x22 else { return try scanEscapedString(from: start, decodeInto: out) }
        i += 1
        return (start, i - 1, false)
    }

    /// `scanString` from the first byte after the content's `start` that is not plain (a
    /// backslash, a control byte, or the end of `b`): decodes the escapes to `out`, or throws.
    @inlinable
    mutating func scanEscapedString(from start: Int, decodeInto out: UnsafeMutablePointer<[UInt8]>?) throws(JSONSyntaxError) -> (start: Int, end: Int, escaped: Bool) {
        var escaped = false
        // The start of the bytes since the last escape, copied to `out` as one run.
        var run = start
        while true {
            guard i < b.count else { throw fail(.unterminatedString) }
            let c = b[i]
            if c == 0x22 { break }
            if c < 0x20 { throw fail(.controlCharacter) }
            if let out { out.pointee.append(contentsOf: UnsafeBufferPointer(rebasing: b[run..<i])) }
            escaped = true
            try scanEscape(into: out)
            run = i
            i = JSONScanner.specialByte(b, from: i)
        }
        if escaped, let out { out.pointee.append(contentsOf: UnsafeBufferPointer(rebasing: b[run..<i])) }
        let end = i
        i += 1
        return (start, end, escaped)
    }

    @inlinable
    func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case 0x30...0x39: return UInt32(c - 0x30)
        case 0x41...0x46: return UInt32(c - 0x41 + 10)
        case 0x61...0x66: return UInt32(c - 0x61 + 10)
        default: return nil
        }
    }

    @inlinable
    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard i + 4 <= b.count else { throw fail(.shortUnicodeEscape) }
        var v: UInt32 = 0
        for k in 0..<4 {
            guard let h = hexValue(b[i + k]) else { throw fail(.invalidHexDigit, at: i + k) }
            v = v << 4 | h
        }
        i += 4
        return v
    }

    /// At a backslash: checks one escape and appends its UTF-8 to `out`.
    @inlinable
    mutating func scanEscape(into out: UnsafeMutablePointer<[UInt8]>?) throws(JSONSyntaxError) {
        i += 1
        guard i < b.count else { throw fail(.unterminatedEscape) }
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
            if rules == .document {
                scalar = try strictSurrogatePair(scalar)
            } else if scalar >= 0xD800 && scalar <= 0xDBFF {
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
            throw fail(.invalidEscape)
        }
        i += 1
        if let out { out.pointee.append(UInt8(scalar)) }
    }

    /// After the `\uXXXX` of `first`, in a document: a high surrogate must pair with the
    /// low one escaped right after it, and a low one cannot stand alone. Returns the scalar.
    @inlinable
    mutating func strictSurrogatePair(_ first: UInt32) throws(JSONSyntaxError) -> UInt32 {
        if first >= 0xDC00 && first <= 0xDFFF { throw fail(.loneSurrogate) }
        guard first >= 0xD800 && first <= 0xDBFF else { return first }
        guard i + 1 < b.count, b[i] == 0x5C, b[i + 1] == 0x75 else { throw fail(.loneSurrogate) }
        i += 2
        let low = try hex4()
        guard low >= 0xDC00 && low <= 0xDFFF else { throw fail(.loneSurrogate) }
        return 0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00)
    }

    @inlinable
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
    @inlinable
    public mutating func parseString() throws(JSONSyntaxError) -> String {
        var scratch: [UInt8] = []
        let r = try withUnsafeMutablePointer(to: &scratch) { p throws(JSONSyntaxError) in try scanString(decodeInto: p) }
        if rules == .document, UTF8Check.firstInvalid(UnsafeBufferPointer(rebasing: b[r.start..<r.end])) != nil {
            throw fail(.invalidUTF8)
        }
        if r.escaped { return String(decoding: scratch, as: UTF8.self) }
        return String(decoding: UnsafeBufferPointer(rebasing: b[r.start..<r.end]), as: UTF8.self)
    }

    // MARK: numbers and literals

    /// Scans a number per the RFC 8259 grammar; returns its range.
    @inlinable
    public mutating func scanNumber() throws(JSONSyntaxError) -> Range<Int> {
        let start = i
        if peek == 0x2D { i += 1 }
        guard let first = peek, first >= 0x30, first <= 0x39 else { throw fail(.invalidNumber) }
        i += 1
        if first != 0x30 {
            while let c = peek, c >= 0x30, c <= 0x39 { i += 1 }
        } else if rules == .eventLine, let c = peek, c >= 0x30, c <= 0x39 {
            // A document's number ends at the zero, and what follows is read as the next token.
            throw fail(.leadingZero)
        }
        if peek == 0x2E {
            i += 1
            guard let c = peek, c >= 0x30, c <= 0x39 else { throw fail(.noFractionDigit) }
            while let c = peek, c >= 0x30, c <= 0x39 { i += 1 }
        }
        if peek == 0x65 || peek == 0x45 {
            i += 1
            if peek == 0x2B || peek == 0x2D { i += 1 }
            guard let c = peek, c >= 0x30, c <= 0x39 else { throw fail(.noExponentDigit) }
            while let c = peek, c >= 0x30, c <= 0x39 { i += 1 }
        }
        return start..<i
    }

    @inlinable
    mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let n = word.utf8CodeUnitCount
        let p = word.utf8Start
        guard i + n <= b.count else { throw fail(.invalidLiteral(start: i)) }
        for k in 0..<n where b[i + k] != p[k] { throw fail(.invalidLiteral(start: i), at: i + k) }
        i += n
    }

    // MARK: values

    /// At a container's opening byte: enters it (at most `maxDepth` deep) and returns true
    /// when `close` follows at once (an empty container, then left too).
    @inlinable @inline(__always)
    mutating func enter(closing close: UInt8) throws(JSONSyntaxError) -> Bool {
        depth += 1
        guard depth <= JSONScanner.maxDepth else { throw fail(.tooDeep) }
        i += 1
        skipWhitespace()
        if peek == close { i += 1; depth -= 1; return true }
        return false
    }

    /// After a container's member: true past a comma (another member follows), false past
    /// `close` (the container left); anything else is `what` missing.
    @inlinable @inline(__always)
    mutating func next(closing close: UInt8, _ what: Expected) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        if peek == 0x2C { i += 1; return true }
        try expect(close, what)
        depth -= 1
        return false
    }

    /// Validates one value (after optional leading whitespace) and moves past it.
    @inlinable
    public mutating func skipValue() throws(JSONSyntaxError) {
        skipWhitespace()
        guard let c = peek else { throw fail(.expected(.value)) }
        switch c {
        case 0x7B:
            if try enter(closing: 0x7D) { return }
            repeat {
                skipWhitespace()
                _ = try scanString(decodeInto: nil)
                skipWhitespace()
                try expect(0x3A, .colon)
                try skipValue()
            } while try next(closing: 0x7D, .commaOrObjectEnd)
        case 0x5B:
            if try enter(closing: 0x5D) { return }
            repeat {
                try skipValue()
            } while try next(closing: 0x5D, .commaOrArrayEnd)
        case 0x22: _ = try scanString(decodeInto: nil)
        case 0x74: try literal("true")
        case 0x66: try literal("false")
        case 0x6E: try literal("null")
        case 0x2D, 0x30...0x39: _ = try scanNumber()
        default: throw fail(.expected(.value))
        }
    }

    /// Parses one value (after optional leading whitespace) into a `JSONValue`.
    @inlinable
    public mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        if rules == .document, depth >= JSONScanner.documentDepth { throw fail(.tooDeep) }
        guard let c = peek else { throw fail(.expected(.value)) }
        switch c {
        case 0x7B:
            var fields: [String: JSONValue] = [:]
            if try enter(closing: 0x7D) { return .object(fields) }
            repeat {
                skipWhitespace()
                let key = try parseString()
                if rules == .document, fields[key] != nil { throw fail(.duplicateKey(key)) }
                skipWhitespace()
                guard peek == 0x3A else { throw fail(.noColon(afterKey: key)) }
                i += 1
                fields[key] = try parseValue()
            } while try next(closing: 0x7D, .commaOrObjectEnd)
            return .object(fields)
        case 0x5B:
            var items: [JSONValue] = []
            if try enter(closing: 0x5D) { return .array(items) }
            repeat {
                items.append(try parseValue())
            } while try next(closing: 0x5D, .commaOrArrayEnd)
            return .array(items)
        case 0x22: return .string(try parseString())
        case 0x74: try literal("true"); return .bool(true)
        case 0x66: try literal("false"); return .bool(false)
        case 0x6E: try literal("null"); return .null
        case 0x2D, 0x30...0x39:
            let r = try scanNumber()
            return .number(String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self))
        default: throw fail(.expected(.value))
        }
    }
}
