/// Literals for ClickHouse SQL text.
public enum ClickHouseSQL {
    /// `s` as a quoted string literal (backslash and quote escaped).
    public static func quote(_ s: String) -> String {
        var out = "'"
        out.reserveCapacity(s.utf8.count + 2)
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\0": out += "\\0"
            default: out.unicodeScalars.append(c)
            }
        }
        return out + "'"
    }

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
}
