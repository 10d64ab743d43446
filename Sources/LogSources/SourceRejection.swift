/// Why a vendor line was not mapped to an event, in the vendor's words (`segment: no
/// messageId`), with the byte offset in the line where it applies when there is one. `code`
/// is the native rejection's code for the same fault (LogFiles' `Rejection.Code`), so a
/// vendor line is quarantined as a native line with that fault would be.
public struct SourceRejection: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case invalidUTF8 = "invalid_utf8"
        case notJSON = "not_json"
        case notObject = "not_object"
        case missingField = "missing_field"
        case notAString = "not_a_string"
        case notAnObject = "not_an_object"
        case badTimestamp = "bad_timestamp"
        case emptyField = "empty_field"
    }

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
