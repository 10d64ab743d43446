/// StoreCore's tuning constants, in one place: the input reader's buffer and the allocator's
/// threshold.
enum Tuning {
    /// Bytes read at a time while hashing or spooling an input.
    static let readBuffer = 1 << 20
    /// Blocks of this many bytes or more are mapped on their own and unmapped when freed
    /// (`Allocator`).
    static let mmapThreshold: Int32 = 256 << 10
}
