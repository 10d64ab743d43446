/// Plain text set in columns of characters: padded with spaces, or cut with `…`. Nothing is
/// escaped here: text from events goes through `TerminalText` first (Reports' `Format.pad`
/// does both).
public enum TextCell {
    /// `s` followed (with `right`, preceded) by spaces up to `width` characters; longer text
    /// as it is.
    public static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let n = s.count
        if n >= width { return s }
        let fill = String(repeating: " ", count: width - n)
        return right ? fill + s : s + fill
    }

    /// `s`, or its first `width - 1` characters and `…` when it is longer than `width`.
    public static func cut(_ s: String, _ width: Int) -> String {
        s.count <= width ? s : String(s.prefix(max(0, width - 1))) + "…"
    }

    /// `s`, or `…` and its last `width - 1` characters when it is longer than `width` (a
    /// path keeps its file name).
    public static func cutLeft(_ s: String, _ width: Int) -> String {
        s.count <= width ? s : "…" + String(s.suffix(max(0, width - 1)))
    }
}
