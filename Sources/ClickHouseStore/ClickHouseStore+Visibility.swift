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

    /// Reads a RowBinary answer row by row.
    func rows(_ client: ClickHouseClient, _ sql: String, doing: String, _ row: (inout RowBinaryReader) throws -> Void) throws {
        var reader = RowBinaryReader(try client.read(sql + " FORMAT RowBinary", doing: doing), doing: doing)
        while !reader.isAtEnd { try row(&reader) }
    }
}
