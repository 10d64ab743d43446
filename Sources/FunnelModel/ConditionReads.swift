/// What some conditions read of a context (`ConditionContext.lookup`'s keys), and a context
/// cut down to that as a small value to key a cache by: two contexts with equal keys (and the
/// same flag defaults) answer those conditions, and every flag, alike. Hashing the key hashes
/// a few arrays in one pass, where a `ConditionContext` hashes each dictionary entry apart.
public struct ConditionReads: Sendable, Hashable {
    /// The keys read, sorted; each is kept from the values, as `FlowDefinition.pathContext` does.
    public let valueKeys: [String]
    public let appVersion: Bool
    public let platform: Bool
    public let startDate: Bool

    public init(_ keys: Set<String>) {
        valueKeys = keys.sorted()
        appVersion = keys.contains("app_version")
        platform = keys.contains("platform")
        startDate = keys.contains("start_date")
    }

    /// A context cut down to what the conditions read, with every flag (a step's flag is read
    /// by its name, not through a key).
    public struct Key: Sendable, Hashable {
        var values: [JSONValue?]
        /// The flags by name, sorted.
        var flagNames: [String]
        var flagValues: [JSONValue]
        var appVersion: String?
        var platform: String?
        var startDate: String?
    }

    /// The key of a context with these parts; `startDate` is asked only when a condition reads it.
    public func key(values: [String: JSONValue], flags: [String: JSONValue], appVersion: String?,
                    platform: String?, startDate: () -> String?) -> Key {
        var flagNames = Array(flags.keys)
        if flagNames.count > 1 { flagNames.sort() }
        return Key(values: valueKeys.map { values[$0] }, flagNames: flagNames, flagValues: flagNames.map { flags[$0] ?? .null },
                   appVersion: self.appVersion ? appVersion : nil, platform: self.platform ? platform : nil,
                   startDate: self.startDate ? startDate() : nil)
    }
}
