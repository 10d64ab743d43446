/// Why a line was not accepted as an event, as a stable code: stored in the quarantine and
/// printed by `--format json`. One set for funnel's own lines (LogFiles' `Rejection`) and a
/// vendor's (LogSources' `SourceRejection`): a line with the same fault gets the same code.
public enum RejectionCode: String, Sendable, CaseIterable, Codable {
    case invalidUTF8 = "invalid_utf8"
    case notJSON = "not_json"
    case notObject = "not_object"
    case missingField = "missing_field"
    case notAString = "not_a_string"
    case notAnObject = "not_an_object"
    case badTimestamp = "bad_timestamp"
    case emptyField = "empty_field"
    case lineTooLong = "line_too_long"
}
