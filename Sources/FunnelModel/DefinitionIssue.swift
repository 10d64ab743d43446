/// The kinds of fault a definition file (a flow, a source) can have, and what it defines.
public protocol DefinitionIssueKind: RawRepresentable, Sendable, Hashable where RawValue == String {
    /// `flow`, `source`: the word in "cannot load flow x.json".
    static var definition: String { get }
}

/// One thing wrong with a definition file, with the JSON path of the value at fault
/// (`$.lanes[1].steps[4]`, `$.fields.user_id[1]`).
public struct DefinitionIssue<Kind: DefinitionIssueKind>: Sendable, Hashable, CustomStringConvertible {
    public var kind: Kind
    /// JSON path of the value at fault: `$`, `$.steps[3].when`, `$.lanes[1].steps[4]`.
    public var path: String
    public var message: String

    public init(_ kind: Kind, _ path: String, _ message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    /// `$.steps[3].when: message [kind]`; an issue with the whole file (`$`) is only its message.
    public var description: String {
        path == "$" ? "\(message) [\(kind.rawValue)]" : "\(path): \(message) [\(kind.rawValue)]"
    }

    /// The issue as `flows check` and `sources check` print it.
    public var row: DefinitionCheckText.Row {
        DefinitionCheckText.Row(kind: kind.rawValue, path: path, message: message, text: description)
    }
}

/// A definition file that could not be loaded: where it is and every issue found in it.
public struct DefinitionLoadError<Kind: DefinitionIssueKind>: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var issues: [DefinitionIssue<Kind>]

    public init(file: String, issues: [DefinitionIssue<Kind>]) {
        self.file = file
        self.issues = issues
    }

    public var description: String {
        "cannot load \(Kind.definition) \(file): " + issues.map(\.description).joined(separator: "; ")
    }
}
