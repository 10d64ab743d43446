import FunnelModel

/// Why a vendor line was not mapped to an event, in the vendor's words (`segment: no
/// messageId`), with the byte offset in the line where it applies when there is one. `code`
/// is the one `RejectionCode`, as a native line with the same fault gets, so a vendor line
/// is quarantined as that line would be.
public struct SourceRejection: Error, Sendable, Hashable, CustomStringConvertible {
    public typealias Code = RejectionCode

    public var code: Code
    /// `SOURCE: reason`, naming the vendor's field.
    public var text: String
    /// The byte (0-based) in the line: of the bad sequence, the syntax error, or the value at fault.
    public var offset: Int?

    public init(_ code: Code, _ text: String, offset: Int? = nil) {
        self.code = code
        self.text = text
        self.offset = offset
    }

    public var description: String { offset.map { "\(text) (byte \($0 + 1))" } ?? text }
}
