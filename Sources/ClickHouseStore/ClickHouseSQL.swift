/// Literals for ClickHouse SQL text.
public enum ClickHouseSQL {
    /// `s` as a quoted string literal.
    public static func quote(_ s: String) -> String { "'" + tsv(s) + "'" }

    /// `values` as a list for `IN (…)`; `(NULL)` (matching nothing) when empty.
    public static func list<S: Sequence>(_ values: S) -> String where S.Element: BinaryInteger {
        let parts = values.map { String($0) }
        return "(" + (parts.isEmpty ? "NULL" : parts.joined(separator: ", ")) + ")"
    }

    /// `values` as a list of quoted strings for `IN (…)`.
    public static func list<S: Sequence>(strings values: S) -> String where S.Element == String {
        let parts = values.map(quote)
        return "(" + (parts.isEmpty ? "NULL" : parts.joined(separator: ", ")) + ")"
    }

    /// `s` with backslash, quote, tab, newline, carriage return and NUL backslash-escaped: a
    /// TabSeparated field, and the inside of a string literal (the server reads both alike).
    public static func tsv(_ s: String) -> String {
        guard s.utf8.contains(where: escaped) else { return s }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count + 8)
        Array(s.utf8).withUnsafeBufferPointer { appendTSV($0, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `field` to `out` as `tsv` escapes it.
    public static func appendTSV(_ field: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard field.contains(where: escaped) else {
            out.append(contentsOf: field)
            return
        }
        for c in field {
            switch c {
            case 0x5C: out += [0x5C, 0x5C]
            case 0x27: out += [0x5C, 0x27]
            case 0x09: out += [0x5C, 0x74]
            case 0x0A: out += [0x5C, 0x6E]
            case 0x0D: out += [0x5C, 0x72]
            case 0: out += [0x5C, 0x30]
            default: out.append(c)
            }
        }
    }

    private static func escaped(_ c: UInt8) -> Bool { c == 0x5C || c == 0x27 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0 }
}
