import Foundation
import FunnelModel

/// HTML escaping for text and attribute values.
enum HTML {
    /// `s` as text or an attribute value: markup characters as entities, control characters
    /// written out as on a terminal (`TerminalText`; line breaks and tabs are
    /// white space to HTML and kept), so that the page shows them and a page
    /// printed to a terminal cannot drive it.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\n", "\t": out.unicodeScalars.append(c)
            default:
                if let e = TerminalText.escaped(c) { out += e } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }

    /// A number for SVG coordinates and CSS lengths: at most two decimals, `.` as separator.
    static func num(_ v: Double) -> String {
        guard v.isFinite else { return "0" }
        let r = (v * 100).rounded() / 100
        if r == r.rounded() { return String(Int64(r)) }
        return String(format: "%.2f", r)
    }

    /// Thousands separated by a thin space: `12 345`.
    static func count(_ n: Int) -> String {
        let digits = String(abs(n))
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "\u{202F}" }
            out.append(ch)
        }
        return (n < 0 ? "−" : "") + out
    }
}
