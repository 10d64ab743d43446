/// The ClickHouse store's tuning constants, in one place.
enum Tuning {
    /// Seconds a request may wait for the server's next bytes before it fails.
    static let requestTimeout: Double = 300
    /// Seconds a new connection to the server may take to open before the request fails.
    static let connectTimeout: Double = 10
    /// Seconds an idle connection is kept for the next request: under the server's
    /// `keep_alive_timeout` (3 s in its packaged config, 10 s or more by default), so funnel
    /// closes it first and never sends a request on one the server is closing.
    static let idleConnectionTimeout: Double = 2
    /// How often a read (never an insert) is tried when the server cannot be reached.
    static let readAttempts = 3
    /// Seconds before the second try of a read; doubled before each further one.
    static let retryDelay: Double = 0.25
    /// The longest query text the server accepts (its default, 256 KiB, is short for a
    /// visibility list of many inputs).
    static let maxQuerySize = 64 << 20
    /// Characters of a failed query shown in its error.
    static let queryShown = 160
    /// An insert's body of this many bytes or more is sent gzip-compressed (to a server on
    /// another machine).
    static let compressedBodyBytes = 64 << 10
    /// libdeflate's level for a request body: fast, most of the bytes saved.
    static let bodyGzipLevel: Int32 = 1

    // MARK: ingest

    /// Lines an input gathers before their ids are looked up among the stored events and its
    /// events go in one insert (each lookup scans the stored ids once).
    static let chunkRows = 65_536
    /// Line bytes a chunk holds, at most (the insert's body is about this size).
    static let chunkBytes = 32 << 20
    /// Line shapes an input may add to the store (`ClickHouseShapes`), at most: past it, its
    /// lines of a new shape are kept whole, so lines that never repeat their shape cost
    /// bounded memory and rows.
    static let newShapesPerInput = 4_096
    /// Bytes of duplicate, conflict and quarantine rows held before they are inserted.
    static let sideRowBytes = 4 << 20
    /// Elements a query may have (every request sets it): a chunk's ids, the committed
    /// attempts, the users of a drop-off (the server's default, 50,000, is less than a chunk).
    static let queryElements = 4 << 20

    // MARK: reading

    /// Line bytes one answer of a whole-log read brings, about: a shard's users are read in
    /// as many hash buckets as it takes (each user in one), so memory does not grow with the log.
    static let bucketBytes: Int64 = 48 << 20
    /// Seqs one answer of an export covers: lines come back in arrival order, a range at a time.
    static let exportSeqs: UInt64 = 200_000

    // MARK: writers

    /// Seconds between the heartbeats an ingest or rebuild writes in the `writers` table.
    static let writerHeartbeat: Double = 10
    /// Seconds between two looks at the `writers` table while an ingest or rebuild waits for
    /// another one to end.
    static let writerWaitPoll: Double = 2
    /// Seconds of silence after which a writer that did not record its end counts as killed,
    /// not running: six heartbeats missed, which a live writer does not miss on a working server.
    static let writerGoneAfter = 60
}
