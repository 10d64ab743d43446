/// EventStore's tuning constants, in one place.
enum Tuning {
    /// Emptied batches kept for the parser to fill again.
    static let spareBatches = 2
}
