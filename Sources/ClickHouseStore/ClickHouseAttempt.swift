/// An input's rows written under a fresh random id (`ClickHouseIngestor`): they count once the
/// input's ledger row names the attempt. What an ingest's observer writes with an input.
public struct ClickHouseAttempt: Sendable, Hashable {
    public var id: UInt64

    public init(id: UInt64) { self.id = id }
}
