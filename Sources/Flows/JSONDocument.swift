import FunnelModel

/// A JSON syntax error with the line and column where it was found.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var reason: String
    public var description: String { "line \(line), column \(column): \(reason)" }
}

/// A small strict JSON reader (RFC 8259) into `JSONValue`, so a flow file's shape can be checked
/// field by field with JSON paths, and syntax errors point at a line and column.
struct JSONDocument {
    private let bytes: [UInt8]
    private var i = 0

    static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var p = JSONDocument(bytes: bytes)
        // A UTF-8 byte order mark is tolerated.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { p.i = 3 }
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == bytes.count else { throw p.fail("unexpected text after the JSON value") }
        return v
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func fail(_ reason: String) -> JSONSyntaxError {
        var line = 1, col = 1
        for b in bytes[0..<min(i, bytes.count)] {
            if b == 10 { line += 1; col = 1 } else if b & 0xC0 != 0x80 { col += 1 }
        }
        return JSONSyntaxError(line: line, column: col, reason: reason)
    }

    private mutating func skipSpace() {
        while i < bytes.count, [32, 9, 10, 13].contains(bytes[i]) { i += 1 }
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < 200 else { throw fail("nested too deeply") }
        guard i < bytes.count else { throw fail("unexpected end of input, expected a value") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            var fields: [String: JSONValue] = [:]
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(fields) }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a quoted key") }
                let key = try string()
                if fields[key] != nil { throw fail("duplicate key \"\(key)\"") }
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after key \"\(key)\"") }
                i += 1
                skipSpace()
                fields[key] = try value(depth: depth + 1)
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end of input inside an object") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(fields) }
                throw fail("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            i += 1
            var items: [JSONValue] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end of input inside an array") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                throw fail("expected ',' or ']'")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default:
            return .number(try number())
        }
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<(i + w.count)]) == w else { throw fail("unexpected character") }
        i += w.count
    }

    private mutating func number() throws(JSONSyntaxError) -> String {
        let start = i
        func digits(_ p: inout Int, _ b: [UInt8]) -> Int {
            let s = p
            while p < b.count, b[p] >= 48, b[p] <= 57 { p += 1 }
            return p - s
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 else { throw fail("unexpected character") }
        if bytes[i] == 48 { i += 1 } else { _ = digits(&i, bytes) }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits(&i, bytes) > 0 else { throw fail("expected digits after '.'") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits(&i, bytes) > 0 else { throw fail("expected digits in the exponent") }
        }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { i += 1; break }
            if b < 0x20 { throw fail("control character in a string") }
            if b != UInt8(ascii: "\\") { out.append(b); i += 1; continue }
            i += 1
            guard i < bytes.count else { throw fail("unterminated escape") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if code >= 0xD800, code < 0xDC00 {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw fail("unpaired surrogate")
                    }
                    i += 2
                    let low = try hex4()
                    guard low >= 0xDC00, low < 0xE000 else { throw fail("unpaired surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if code >= 0xDC00, code < 0xE000 {
                    throw fail("unpaired surrogate")
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("invalid \\u escape") }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default: throw fail("invalid escape")
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8 in a string") }
        return s
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            let d: UInt32
            switch c {
            case 48...57: d = UInt32(c - 48)
            case 65...70: d = UInt32(c - 55)
            case 97...102: d = UInt32(c - 87)
            default: throw fail("invalid hex digit in \\u escape")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }
}
