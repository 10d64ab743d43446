import Workers

/// Projections' tuning constants (the SQLite journeys projection), in one place: each bounds
/// memory while journeys are folded or trades it for speed. Figures behind them are in
/// docs/performance.md.
@usableFromInline
enum Tuning {
    /// Events an ingest holds in memory for folding (`ProjectionUpdater.bufferLimit`); past
    /// it, a user's events are dropped and the user is folded from the log.
    @usableFromInline static let heldEvents = 250_000
    /// Journeys planned, folded and written as one chunk: small enough that a fold beside
    /// the writer soon takes both cores once it is awaited.
    static let foldChunk = 1_024
    /// Bytes of lines read back from the log that end a chunk early.
    static let logBytesPerChunk = 4 << 20
    /// Fewer plans than this are folded on one core; more on every worker.
    static let plansForMoreWorkers = 64
    /// Workers of the fold beside the writer (an input's journeys, while the next input is
    /// parsed and written on threads of their own): one, unless it is awaited, when the fold
    /// takes every worker (`FoldContext.awaited`).
    static let foldBesideWriterWorkers = 1
    /// Folded chunks that wait for the writing thread before the fold beside it waits: encoded
    /// rows do not pile up.
    static let waitingFoldChunks = 2
    /// Shares of a flow's journey facts a report reads at once, each on a thread of its own
    /// (one a worker; the users split in two at most): decoding and counting the facts is
    /// most of a warm report.
    @usableFromInline static var factShares: Int { min(2, WorkerCount.machine) }
    /// Shares of the journeys `funnel explain` (and the HTML report's drivers) reads at once,
    /// each on a thread of its own (one a worker): decoding every journey's glance is most of
    /// its time.
    @usableFromInline static var glanceShares: Int { WorkerCount.machine }
}
