/// Untrusted text (event data: user ids, steps, answers, app versions, flag names, paths)
/// made safe to show: every character a terminal would act on is written out instead, so a
/// logged value can neither retitle the window, clear the screen nor reorder what follows.
/// C0 controls (newline and tab too) and DEL become `\xNN`, C1 controls and the bidi
/// controls `\uNNNN`; everything else is itself. Backslashes are kept, so escaping twice
/// gives the same text. The one escaping of terminal text: every renderer calls it.
public enum TerminalText {
    /// The written-out form of `scalar`, or nil when it is shown as itself.
    public static func escaped(_ scalar: Unicode.Scalar) -> String? {
        let v = scalar.value
        if v < 0x20 || v == 0x7F { return "\\x" + hex(v, digits: 2) }
        if (0x80...0x9F).contains(v) || bidiControls.contains(v) { return "\\u" + hex(v, digits: 4) }
        return nil
    }

    /// `value` with every control character written out (newlines too: one value, one line).
    public static func escape(_ value: String) -> String {
        guard !isPrintableASCII(value), value.unicodeScalars.contains(where: { escaped($0) != nil }) else { return value }
        var out = ""
        out.reserveCapacity(value.utf8.count + 8)
        for s in value.unicodeScalars {
            if let e = escaped(s) { out += e } else { out.unicodeScalars.append(s) }
        }
        return out
    }

    /// Several lines of text (a message, a listing): each line escaped, the newlines kept.
    public static func escapeLines(_ text: String) -> String {
        guard !isPrintableASCII(text), text.unicodeScalars.contains(where: { $0 != "\n" && escaped($0) != nil }) else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) }.joined(separator: "\n")
    }

    /// `value` escaped and, when longer than `width` characters, cut to `width` with `…` as
    /// its last: the cut falls between characters of the value, never inside an escape.
    public static func fit(_ value: String, width: Int) -> String {
        let whole = escape(value)
        guard whole.count > width else { return whole }
        guard width > 0 else { return "" }
        var out = ""
        var count = 0
        for c in value {
            let piece = escape(String(c))
            if count + piece.count > width - 1 { break }
            out += piece
            count += piece.count
        }
        return out + "…"
    }

    /// Whether every byte of `value` is printable ASCII, which no terminal acts on: most
    /// values are told apart by their bytes, without a look at each scalar.
    static func isPrintableASCII(_ value: String) -> Bool {
        value.utf8.withContiguousStorageIfAvailable { !$0.contains { $0 < 0x20 || $0 >= 0x7F } } ?? false
    }

    /// Marks that reorder the text around them (Unicode bidi embeddings, overrides, isolates).
    static let bidiControls: Set<UInt32> = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
                                            0x2066, 0x2067, 0x2068, 0x2069]

    static func hex(_ v: UInt32, digits: Int) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - s.count)) + s
    }
}
