import Foundation
import FunnelModel

/// Small formatting helpers shared by the renderers.
public enum Format {
    /// `61.8%`, or `—` when there is no rate.
    public static func percent(_ value: Double?, digits: Int = 1) -> String {
        guard let value, value.isFinite else { return "—" }
        return String(format: "%.\(digits)f%%", value * 100)
    }

    /// Words filled into lines of at most `width` columns, each line after the first (or
    /// every line, with `indentFirst`) starting with `indent`; spaces inside a line are kept.
    /// A word longer than a line stands alone on its line, whole: a value is never cut.
    /// Control characters are written out (`TerminalText`): the text is for a terminal.
    public static func wrap(_ text: String, width: Int = 80, indent: String = "  ", indentFirst: Bool = false) -> [String] {
        let text = TerminalText.escape(text)
        var lines: [String] = []
        var start = indentFirst ? indent : ""
        var current = start
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if current == start {
                current += word
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                start = indent
                current = indent + word
            }
        }
        if current != start || lines.isEmpty { lines.append(current) }
        return lines
    }

    /// Every line of `text` longer than `width` wrapped at spaces, its continuation lines
    /// indented past the line's own indentation; shorter lines as they are. Control
    /// characters are written out (`TerminalText`), the newlines kept.
    public static func wrapLines(_ text: String, width: Int = 80, indent: String = "    ") -> String {
        TerminalText.escapeLines(text).split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.count > width else { return String(line) }
            let leading = String(line.prefix { $0 == " " })
            return wrap(String(line.dropFirst(leading.count)), width: width - leading.count, indent: indent)
                .map { leading + $0 }.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// A cell of `width` columns: `s` with its control characters written out
    /// (`TerminalText`), padded with spaces, or cut with `…` (never inside an escape).
    public static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        TextCell.pad(TerminalText.fit(s, width: width), width, right: right)
    }

    /// A bar of `width` cells for a fraction 0…1, in eighths.
    public static func bar(_ fraction: Double?, width: Int) -> String {
        guard let fraction, fraction.isFinite else { return String(repeating: " ", count: width) }
        let eighths = Int((min(max(fraction, 0), 1) * Double(width * 8)).rounded())
        let blocks = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        var out = String(repeating: "█", count: eighths / 8)
        if eighths % 8 > 0 { out += blocks[eighths % 8] }
        return TextCell.pad(out, width)
    }

    /// `+5.9 pts` for a difference in percentage points, `—` without one.
    public static func points(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "—" }
        return String(format: "%+.1f pts", value)
    }

    /// A p-value in words: `p < 0.001`, `p = 0.012`.
    public static func pValue(_ p: Double) -> String {
        p < 0.001 ? "p < 0.001" : String(format: "p = %.3f", p)
    }

    /// A p-value for a table cell: `<0.001`, `0.012`, `—` without one; a `*` marks one below
    /// `Statistics.significanceLevel`.
    public static func pCell(_ p: Double?) -> String {
        guard let p else { return "—" }
        return (p < 0.001 ? "<0.001" : String(format: "%.3f", p)) + (p < Statistics.significanceLevel ? "*" : "")
    }

    public static func number(_ value: Double?, digits: Int = 3) -> String {
        guard let value, value.isFinite else { return "" }
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: "%.\(digits)f", value)
    }

    /// Wraps `text` to 80 columns at word boundaries, every line indented by `indent`,
    /// continuation lines by two more (`wrap`: a word longer than the line is kept whole).
    public static func wrapped(_ text: String, indent: Int, style: (String) -> String = { $0 }) -> String {
        guard !text.isEmpty else { return "" }
        let pad = String(repeating: " ", count: indent)
        return wrap(text, width: 80 - indent, indent: "  ").map { pad + style($0) + "\n" }.joined()
    }
}
