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
        guard s.utf8.contains(where: { $0 == 0x5C || $0 == 0x27 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0 }) else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count + 8)
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
