/// StoreCore's tuning constants, in one place: the input reader's buffer, the allocator's
/// threshold and release, and the write-behind's interval.
enum Tuning {
    /// Bytes read at a time while hashing or spooling an input.
    static let readBuffer = 1 << 20
    /// Blocks of this many bytes or more are mapped on their own and unmapped when freed
    /// (`Allocator`).
    static let mmapThreshold: Int32 = 256 << 10
    /// Freed memory is given back once inputs of this many (compressed) bytes were read since
    /// it last was (`Allocator.releaseFreeMemory`): after each large input, and once in a
    /// while among many small ones, for which each release and the faults after it cost more
    /// than the pages they free.
    static let releaseAfterBytes: Int64 = 4 << 20
    /// Source definitions kept read (`InputSourceRecord.cutter`): a store's inputs were read
    /// through a few.
    static let cachedSources = 64
    /// Seconds between two starts of a store's write-out while it is written (`WriteBehind`):
    /// a checkpoint's fsync then waits for a few milliseconds' pages at most.
    static let writeBehindInterval = 0.005
}
