import FunnelModel

/// Why a log line was not accepted as an event. `code` is stable (it is stored in the
/// quarantine and printed by `--format json`); `text` is for people.
public enum Rejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line is not valid UTF-8; `offset` is the byte of the first bad sequence (0-based).
    case invalidUTF8(offset: Int)
    /// The line is not JSON; `column` is 1-based, in bytes.
    case notJSON(column: Int, detail: String)
    /// The line is JSON but not an object; `found` names what it is (array, string, …).
    case notObject(found: String)
    case missingField(String)
    case notAString(field: String)
    case notAnObject(field: String)
    /// `ts` is not an RFC 3339 date-time with an offset or Z.
    case badTimestamp(String)
    /// `event_id` or `user_id` is the empty string.
    case emptyField(String)
    /// The line is longer than `LineReader.maxLineLength`; `length` is its full length.
    case lineTooLong(length: Int)
    /// A vendor line its source could not map: the native code, the reason in the vendor's
    /// words (`segment: no messageId`) and the byte in the line (0-based) where it applies.
    case vendor(code: RejectionCode, text: String, offset: Int?)

    /// Stable machine codes, one per kind of rejection (FunnelModel's `RejectionCode`).
    public typealias Code = RejectionCode

    public var code: Code {
        switch self {
        case .invalidUTF8: return .invalidUTF8
        case .notJSON: return .notJSON
        case .notObject: return .notObject
        case .missingField: return .missingField
        case .notAString: return .notAString
        case .notAnObject: return .notAnObject
        case .badTimestamp: return .badTimestamp
        case .emptyField: return .emptyField
        case .lineTooLong: return .lineTooLong
        case .vendor(let code, _, _): return code
        }
    }

    public var text: String {
        switch self {
        case .invalidUTF8(let offset): return "invalid UTF-8 at byte \(offset + 1)"
        case .notJSON(let column, let detail): return "not JSON at column \(column): \(detail)"
        case .notObject(let found): return "not an object: the line is a JSON \(found)"
        case .missingField(let field): return "missing field \(field)"
        case .notAString(let field): return "field \(field) must be a string"
        case .notAnObject(let field): return "field \(field) must be an object"
        case .badTimestamp(let value):
            return "bad timestamp \(value.count > 80 ? String(value.prefix(80)) + "…" : value) in ts: expected RFC 3339 with an offset or Z"
        case .emptyField(let field): return "empty \(field)"
        case .lineTooLong(let length):
            return "line over 1 MiB (\(length) bytes): its first \(LineReader.maxLineLength) bytes are kept"
        case .vendor(_, let text, let offset): return offset.map { "\(text) (byte \($0 + 1))" } ?? text
        }
    }

    public var description: String { text }
}
