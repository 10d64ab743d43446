/// StoreCore's tuning constants, in one place: the defaults of `IngestOptions`, which bound
/// a store writer's memory, the input reader's buffer, and the allocator's threshold.
enum Tuning {
    /// SQLite page cache of the writing connection (MiB, `IngestOptions.cacheMiB`).
    static let writerCacheMiB = 24
    /// New ids an input holds before writing them to the index (16 bytes each;
    /// `IngestOptions.heldIDs`).
    static let heldIDs = 1 << 18
    /// The id filter's largest size in bytes (`IngestOptions.idFilterBytes`).
    static let idFilterBytes = 64 << 20
    /// Bytes read at a time while hashing or spooling an input.
    static let readBuffer = 1 << 20
    /// Blocks of this many bytes or more are mapped on their own and unmapped when freed
    /// (`Allocator`).
    static let mmapThreshold: Int32 = 256 << 10
}
