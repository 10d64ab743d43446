import FunnelModel

/// One thing wrong with a source definition, with the JSON path of the value at fault
/// (`$.fields.user_id[1]`).
public typealias SourceIssue = DefinitionIssue<SourceIssueKind>

/// A source file that could not be loaded: where it is and every issue found in it.
public typealias SourceLoadError = DefinitionLoadError<SourceIssueKind>

/// The kinds of fault `sources check` reports.
public enum SourceIssueKind: String, DefinitionIssueKind, CaseIterable {
    /// The file cannot be read.
    case unreadable
    /// The text is not JSON.
    case syntax
    /// A field is missing, has the wrong type, or is not part of the format.
    case shape
    /// A vendor path is empty or has an empty key (`properties..step`).
    case badPath = "bad-path"
    /// The event table maps to a name outside the native contract, or maps a native name
    /// (which passes through as it is).
    case badEventName = "bad-event-name"

    public static let definition = "source"
}
