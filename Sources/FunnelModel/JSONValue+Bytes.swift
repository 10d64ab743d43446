/// `JSONValue` written as UTF-8 bytes: the same text as `write(into:)` (compact, keys sorted),
/// without building a `String` scalar by scalar (the native line of each vendor line).
extension JSONValue {
    public func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.utf8)
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let items):
            out.append(0x5B)
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(0x2C) }
                item.write(into: &out)
            }
            out.append(0x5D)
        case .object(let fields):
            // Sorted pairs: no lookup of each key again.
            out.append(0x7B)
            for (i, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out.append(0x2C) }
                JSONValue.writeString(field.key, into: &out)
                out.append(0x3A)
                field.value.write(into: &out)
            }
            out.append(0x7D)
        }
    }

    /// `s` as a JSON string literal with the escapes RFC 8259 requires (as `writeString(_:into:)`
    /// writes them into a `String`).
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        var s = s
        s.withUTF8 { b in
            var run = 0
            for (i, c) in b.enumerated() where c < 0x20 || c == 0x22 || c == 0x5C {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[run..<i]))
                run = i + 1
                switch c {
                case 0x22: out.append(contentsOf: #"\""#.utf8)
                case 0x5C: out.append(contentsOf: #"\\"#.utf8)
                case 0x0A: out.append(contentsOf: #"\n"#.utf8)
                case 0x0D: out.append(contentsOf: #"\r"#.utf8)
                case 0x09: out.append(contentsOf: #"\t"#.utf8)
                case 0x08: out.append(contentsOf: #"\b"#.utf8)
                case 0x0C: out.append(contentsOf: #"\f"#.utf8)
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: #"\u00"#.utf8)
                    out.append(hex[Int(c >> 4)])
                    out.append(hex[Int(c & 0xF)])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[run..<b.count]))
        }
        out.append(0x22)
    }
}
