/// An event's answers (its properties) or its context's flags by the codes of the keys its
/// flow definition names (the fold's `DefinedKeys`): what a fold sets without hashing a key.
/// Worked out once for the many events with the same properties or context.
public struct CodedPairs: Sendable {
    /// Each key's code and value.
    public var pairs: [(code: Int32, value: JSONValue)]

    public init(_ pairs: [(code: Int32, value: JSONValue)]) {
        self.pairs = pairs
    }
}
