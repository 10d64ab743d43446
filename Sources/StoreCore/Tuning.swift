/// StoreCore's tuning constants, in one place: the input reader's buffer, the allocator's
/// threshold and release, and the write-behind's interval.
enum Tuning {
    /// Bytes read at a time while hashing or spooling an input.
    static let readBuffer = 1 << 20
    /// Blocks of this many bytes or more are mapped on their own and unmapped when freed
    /// (`Allocator`): an input's largest arrays, not the many of a few hundred KiB that each
    /// input allocates again (whose pages would be faulted in anew every time).
    static let mmapThreshold: Int32 = 4 << 20
    /// Freed memory is given back once inputs of this many (compressed) bytes were read since
    /// it last was (`Allocator.releaseFreeMemory`): often enough to bound what a long run of
    /// inputs leaves behind, rarely enough that the next inputs mostly reuse the pages the ones
    /// before freed instead of faulting them in again.
    static let releaseAfterBytes: Int64 = 64 << 20
    /// Source definitions kept read (`InputSourceRecord.cutter`): a store's inputs were read
    /// through a few.
    static let cachedSources = 64
    /// Seconds between two starts of a store's write-out while it is written (`WriteBehind`):
    /// a checkpoint's fsync then waits for a few milliseconds' pages at most.
    static let writeBehindInterval = 0.005
    /// Lines an input's accepted-line table covers at most (`AcceptedLines.ByLine`, four
    /// bytes a line while a segment's events are handed to the fold); past it, each line's
    /// seq is searched among the runs.
    static let denseAcceptedLines = 8 << 20
}
