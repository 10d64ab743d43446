/// Workers' tuning constants, in one place.
enum Tuning {
    /// Stack of a worker thread (parsing, folding).
    static let workerStack = 8 << 20
}
