import FunnelModel

/// CSV cells (RFC 4180) of untrusted values, safe to open in a spreadsheet: a cell that
/// starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, so that
/// Excel, LibreOffice and Google Sheets show it as text instead of running it as a formula
/// (OWASP's advice on CSV injection), and control characters are written out as on a
/// terminal (`TerminalText`). Numbers (`-1.5`) are left as they are. With `raw`
/// (`--raw-csv`, for pipelines) every cell is the value itself, only quoted.
public enum CSV {
    /// Characters that make a spreadsheet read a cell as a formula when it starts with one.
    static let formulaStarts: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]

    /// One cell: neutralised unless `raw`, then quoted when it holds a comma, a quote or a
    /// line break.
    public static func field(_ value: String, raw: Bool = false) -> String {
        var s = value
        if !raw {
            if let first = s.first, formulaStarts.contains(first), !isNumber(s) { s = "'" + s }
            s = TerminalText.escape(s)
        }
        if s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
            return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return s
    }

    /// One line of cells, with its newline.
    public static func row(_ cells: [String], raw: Bool = false) -> String {
        cells.map { field($0, raw: raw) }.joined(separator: ",") + "\n"
    }

    /// A plain decimal number (`-12`, `-0.5`, `+3`): a spreadsheet reads it as that number.
    static func isNumber(_ s: String) -> Bool {
        var digits = 0, dots = 0
        for (i, c) in s.enumerated() {
            if i == 0 && (c == "-" || c == "+") { continue }
            if c == "." { dots += 1; continue }
            guard c.isASCII, c.isNumber else { return false }
            digits += 1
        }
        return digits > 0 && dots <= 1
    }
}
