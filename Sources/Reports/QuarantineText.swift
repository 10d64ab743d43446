import Foundation
import FunnelModel
import StoreCore

extension QuarantineEntry {
    /// Three lines within 80 columns: where (file, line, byte offset, code), why (wrapped),
    /// and a preview of the bytes.
    public var text: String {
        var lines = ["\(TerminalText.escape(inputPath)):\(line) (byte \(byteOffset)) [\(code.rawValue)]"]
        lines += Format.wrap(reason, width: 80, indent: "    ", indentFirst: true)
        lines.append("    " + preview(limit: 72))
        return lines.joined(separator: "\n")
    }
}

/// `funnel quarantine` as text: every entry, then the count.
public enum QuarantineText {
    public static func render(_ entries: [QuarantineEntry]) -> String {
        if entries.isEmpty { return "no quarantined lines\n" }
        var out = entries.map { $0.text + "\n" }.joined()
        out += "\(entries.count) quarantined line\(entries.count == 1 ? "" : "s")\n"
        return out
    }
}
