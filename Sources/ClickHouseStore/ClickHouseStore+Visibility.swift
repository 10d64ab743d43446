extension ClickHouseStore {
    /// The rows that count at one moment: those of the inputs the ledger held then. A read
    /// takes one and filters every table with it, so an ingest under way (or killed) is not seen.
    public struct Snapshot: Sendable {
        public var attempts: [UInt64]
        /// `attempt IN (…)`, for a WHERE clause.
        public var clause: String { "attempt IN " + ClickHouseSQL.list(attempts) }
    }

    public func snapshot() throws -> Snapshot {
        Snapshot(attempts: try committedAttempts())
    }

    /// `AND` the hash bucket `bucket` of `count` by user (empty for one bucket): each user's
    /// rows fall in one bucket, so a big read goes in answers of bounded size.
    public static func bucket(_ bucket: Int64, of count: Int64) -> String {
        count <= 1 ? "" : " AND cityHash64(user_id) % \(count) = \(bucket)"
    }

    /// Reads a RowBinary answer row by row (`external`: a table sent with the query).
    public func rows(_ client: ClickHouseClient, _ sql: String, doing: String, external: ClickHouseClient.ExternalTable? = nil,
                     _ row: (inout RowBinaryReader) throws -> Void) throws {
        var reader = RowBinaryReader(try client.read(sql + " FORMAT RowBinary", doing: doing, external: external), doing: doing)
        while !reader.isAtEnd { try row(&reader) }
    }
}
