/// A syntax error in JSON text: the byte offset (0-based) where it was found and what was
/// wrong there. A text of several lines (a definition file) names the place by line and
/// column, computed from the offset (`position(in:)`).
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    public var offset: Int
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String { "byte \(offset): \(message)" }

    /// The line and column (1-based) of the offset in `bytes`: a column counts characters
    /// (UTF-8 lead bytes), not bytes.
    public func position(in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for b in bytes[0..<min(offset, bytes.count)] {
            if b == 10 { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
        }
        return (line, column)
    }

    /// `line L, column C: message`, the place in `bytes` as an editor shows it.
    public func located(in bytes: [UInt8]) -> String {
        let (line, column) = position(in: bytes)
        return "line \(line), column \(column): \(message)"
    }
}
