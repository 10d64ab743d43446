/// EventStore's tuning constants, in one place: each bounds ingest memory or trades it for
/// speed. Figures behind them are in the README's "Performance".
enum Tuning {
    // MARK: writing

    /// Events a block of the log holds at most (`EventBlock`; at most `EventBlocks.slots`):
    /// SQLite's cost of a row is paid once for them all.
    static let eventsPerBlock = 64
    /// New shapes an input may add; past it, lines are kept verbatim (a stray input cannot
    /// fill the shapes table).
    static let newShapesPerInput = 4_096
    /// Seqs of user runs held before they are written early.
    static let heldRunSeqs = 1 << 18
    /// SQLite page cache of the writing connection (MiB, `Ingestor.Limits.cacheMiB`): room
    /// for the pages a day's input dirties, so that few are spilled to the WAL before the
    /// commit (a spilled page written again makes the commit read the WAL back from it).
    static let writerCacheMiB = 48
    /// Input bytes (as read) consecutive inputs commit together in one transaction, each
    /// with its own ledger row (`Ingestor.Limits.groupBytes`): a commit writes every journey
    /// and index page it dirtied, and an hourly file dirties about as many as a daily one.
    /// A daily file (several MiB) still commits alone.
    static let groupCommitBytes: Int64 = 4 << 20
    /// Events a migration reads and rewrites at a time.
    static let migrationChunk = 65_536

    // MARK: reading

    /// Events read by seq in one share at least: fewer are read on one thread (a share's
    /// read transaction and statement cost more than a few lines).
    static let seqsPerReadShare = 4_096

    // MARK: event ids

    /// New ids an input holds before writing them to the index (16 bytes each;
    /// `Ingestor.Limits.heldIDs`).
    static let heldIDs = 1 << 18
    /// The id filter's largest size in bytes (`Ingestor.Limits.idFilterBytes`).
    static let idFilterBytes = 64 << 20

    /// Room a filter is made with for an input: at least this many ids, or one per this
    /// many bytes of the input, and the lines the inputs after it in the run may hold (one
    /// filter serves them all).
    static let filterRoomIDs = 1 << 18
    static let filterRoomBytesPerID: Int64 = 16
    /// Room a filter built from every stored hash gets beyond them, at least.
    static let filterRebuildRoom = 1 << 20
    /// The smallest filter, in 64-byte blocks (32 KiB).
    static let filterMinBlocks = 1 << 9
    /// Bytes moved at a time between a filter and its saved copy.
    static let filterChunkBytes = 1 << 20
    /// An input's new ids are kept in 2^bits buckets by their hash's top bits (`NewIDs`):
    /// 4,096 bucket ends fit the cache, and at `heldIDs` a bucket holds about 64 pairs.
    static let newIDsBucketBits = 12

    // MARK: memory and threads

    /// SQLite page size of a new store: shallower indexes, fewer page splits, and fewer WAL
    /// frames (each written and checkpointed with calls of its own) than smaller pages.
    static let pageBytes = 32_768

    // MARK: locking

    /// Times a writer tries the writer lock without blocking, a millisecond apart, before it
    /// waits or (with --no-wait) gives up: a reader looking whether the lock is held holds it
    /// for microseconds.
    static let lockTries = 5
}
