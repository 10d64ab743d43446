import Workers

/// The ClickHouse projections' tuning constants, in one place.
enum Tuning {
    /// Line bytes of a shard folded per answer, about: users go in hash buckets of this size.
    static let foldBytes: Int64 = 48 << 20
    /// Threads that fold buckets of journeys at once after an ingest (each holds one bucket):
    /// one a worker.
    static var foldWorkers: Int { WorkerCount.machine }
    /// Facts rows one answer brings, about.
    static let factsPerAnswer: Int64 = 200_000
    /// Facts rows written per insert.
    static let factsRowsPerInsert = 50_000
}
