/// Projections' tuning constants, in one place.
enum Tuning {
    /// Expected paths kept per flow definition before the cache starts over.
    static let cachedPaths = 4_096
    /// Folded chunks that wait for the writing thread before the fold beside it waits: encoded
    /// rows do not pile up.
    static let waitingFoldChunks = 2
}
