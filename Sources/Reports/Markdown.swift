import FunnelModel

/// Untrusted text (event data, names from flow files) in Markdown: shown as the characters
/// it is, never as markup. Control characters are written out as on a terminal
/// (`TerminalText`); outside code spans `<`, `>` and `&` become entities, so no HTML reaches
/// a renderer, and `\`, `` ` ``, `*`, `_`, `[`, `]` and `|` are backslash-escaped, so a
/// value opens no emphasis, link or code span and never splits a table cell.
public enum Markdown {
    /// `value` as plain text, in a paragraph, a heading or a table cell.
    public static func text(_ value: String) -> String {
        var out = ""
        for c in TerminalText.escape(value).unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\\", "`", "*", "_", "[", "]", "|": out += "\\" + String(c)
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// `value` as a code span, fenced by more backticks than it holds in a row. In a table
    /// cell (`inTable`) a `|` is written `\|`, which GitHub's tables read as a `|` of the span.
    public static func code(_ value: String, inTable: Bool = false) -> String {
        var body = TerminalText.escape(value)
        if inTable { body = body.replacingOccurrences(of: "|", with: "\\|") }
        var longest = 0, run = 0
        for c in body {
            run = c == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        let pad = body.hasPrefix("`") || body.hasSuffix("`") ? " " : ""
        return fence + pad + body + pad + fence
    }
}
