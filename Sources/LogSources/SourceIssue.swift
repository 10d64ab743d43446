/// One thing wrong with a source definition, with the JSON path of the value at fault
/// (`$.fields.user_id[1]`).
public struct SourceIssue: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
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
    }

    public var kind: Kind
    /// JSON path of the value at fault: `$`, `$.fields.ts[0]`, `$.events["Step Viewed"]`.
    public var path: String
    public var message: String

    public init(_ kind: Kind, _ path: String, _ message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    /// `$.fields.ts: message [kind]`; an issue with the whole file (`$`) is only its message.
    public var description: String {
        path == "$" ? "\(message) [\(kind.rawValue)]" : "\(path): \(message) [\(kind.rawValue)]"
    }
}

/// A source file that could not be loaded: where it is and every issue found in it.
public struct SourceLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var issues: [SourceIssue]

    public init(file: String, issues: [SourceIssue]) {
        self.file = file
        self.issues = issues
    }

    public var description: String {
        "cannot load source \(file): " + issues.map(\.description).joined(separator: "; ")
    }
}
