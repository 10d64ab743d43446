/// The keys of `Journey.driftSeen`: one per thing a journey showed that its flow definition
/// does not know, each mapped to the first time it showed it.
public enum DriftKey {
    /// Parts are joined by the unit separator, which no step, key or value in a definition holds.
    package static let separator: Character = "\u{1F}"

    /// An answer the definition does not list for `key`.
    public static func value(_ key: String, _ value: String) -> String { "v\(separator)\(key)\(separator)\(value)" }
    /// An event name outside the event vocabulary.
    public static func event(_ name: String) -> String { "e\(separator)\(name)" }
    /// A flag in `context.flags` that the definition does not declare.
    public static func flag(_ name: String) -> String { "f\(separator)\(name)" }

    /// A key split back into its kind (`v`, `e` or `f`) and parts; nil for one it did not make.
    public static func parse(_ key: String) -> (kind: Character, parts: [String])? {
        let parts = key.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
        guard let kind = parts.first?.first, parts.count >= 2 else { return nil }
        return (kind, Array(parts.dropFirst()))
    }
}
