/// FunnelModel's tuning constants, in one place.
enum Tuning {
    /// Parsed conditions kept by text before the cache starts over (a flow has a few dozen).
    static let cachedConditions = 4_096
}
