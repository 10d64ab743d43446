/// An event's answers (its properties) by the codes of the keys its flow definition collects
/// (the fold's `AnswerKeys`): what a fold sets without hashing a key. Worked out once for
/// the many events with the same properties.
public struct CodedAnswers: Sendable {
    /// Each answer's key code and value.
    public var pairs: [(code: Int32, value: JSONValue)]

    public init(_ pairs: [(code: Int32, value: JSONValue)]) {
        self.pairs = pairs
    }
}
