#if os(Linux)
import CGlibc
#endif

/// The process's allocator, set for ingest: large blocks mapped on their own, and the memory
/// an input freed given back. Linux (glibc) only; elsewhere the allocator is left as is.
enum Allocator {
    /// Has every block of `Tuning.mmapThreshold` or more mapped on its own and unmapped when
    /// freed. glibc otherwise raises that threshold each time such a block is freed (up to
    /// 32 MiB), after which the large arrays of one input stay in the heap and the peak grows
    /// with the input. Batches are reused (`BatchPool`), so few blocks are mapped again and
    /// again. Process-wide, once.
    static func returnLargeBlocks() {
        _ = fixedMapThreshold
    }

    private static let fixedMapThreshold: Bool = {
        #if os(Linux)
        return mallopt(M_MMAP_THRESHOLD, Tuning.mmapThreshold) == 1
        #else
        return false
        #endif
    }()

    /// Gives the memory freed by the input just read back to the system. Each input is
    /// parsed on a thread of its own, whose malloc arena would otherwise keep its freed
    /// pages for a thread that never comes back.
    static func releaseFreeMemory() {
        #if os(Linux)
        _ = malloc_trim(0)
        #endif
    }
}
