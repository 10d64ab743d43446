extension Ingestor {
    /// What bounds the SQLite writer's memory during an ingest.
    public struct Limits: Sendable {
        /// SQLite page cache for the writing connection, in MiB. The writes are appends and
        /// one pass over the id ranges per input: a small cache serves.
        public var cacheMiB = Tuning.writerCacheMiB
        /// New event ids an input holds before it writes them to the dedupe index (16 bytes
        /// each): a longer input writes them as several runs, so its memory stays the same.
        public var heldIDs = Tuning.heldIDs
        /// The Bloom filter of stored event ids, at most, in bytes (bounds ingest memory
        /// however large the store grows; at least 32 KiB). It takes 1.5 bytes an id up to this
        /// size (under 1 % of new ids then looked up in the index for nothing); past it, that
        /// share grows with the store, and each costs a lookup in every run of the index.
        /// Copies are caught either way.
        public var idFilterBytes = Tuning.idFilterBytes
        /// Input bytes (as read: compressed for gzip) that small inputs commit together, at
        /// least: an input that brings its group to this many commits the group. 0: each input
        /// commits on its own.
        public var groupBytes = Tuning.groupCommitBytes

        public init() {}
    }
}
