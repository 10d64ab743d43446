import FunnelModel

/// Reading the event log without its tables or connection: what replay, user lookups and
/// tools need of a store, and export. Each store implements it (`EventStore` for SQLite, `ClickHouseStore`).
public protocol EventLogReading: Sendable {
    /// One user's events (in one flow, or all flows), in fold order (event time, then arrival).
    func events(user: String, flow: String?) throws -> [RecordedEvent]
    /// The whole log (or one flow's part), grouped by user and flow, each group in fold order.
    func forEachEvent(flow: String?, _ body: (RecordedEvent) throws -> Void) throws
    /// The inputs ledger, in ingest order.
    func inputs() throws -> [LedgerEntry]
    /// Every quarantined line, in input and line order.
    func quarantine() throws -> [QuarantineEntry]
    /// The distinct flows in the log, sorted.
    func flows() throws -> [String]
    /// The latest event time, or the latest not after `bound`.
    func latestEventTime(notAfter bound: Timestamp?) throws -> Timestamp?
    /// User ids close to `query`, for "did you mean".
    func userIDs(matching query: String, limit: Int) throws -> [String]
    /// Copies that arrived again (same body) for these events, in arrival order.
    func duplicates(ofEventIDs ids: [String]) throws -> [String: [DuplicateCopy]]
    /// Each user's last event on a step of a flow (fold order) not after `bound`; users with
    /// none are left out.
    func lastEvents(onStep step: String, flow: String, users: [String], notAfter bound: Timestamp) throws -> [String: RecordedEvent]
    /// The events with these seqs (in no particular order): a seq the log does not hold is an
    /// error (callers pass the seqs of stored journeys).
    func events(seqs: [Int64]) throws -> [RecordedEvent]
    /// Calls `body` with each selected event's line, byte for byte as it was accepted (no
    /// newline), in arrival (seq) order: what `funnel export` writes. Duplicates, conflicts and
    /// quarantined lines are not events and never appear. Returns how many lines it gave.
    @discardableResult
    func forEachLine(_ selection: EventSelection, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Int
}

extension EventLogReading {
    /// The log's as-of: the latest event time not after `now` (an event dated in the future
    /// does not move every user into "abandoned").
    public func defaultAsOf(now: Timestamp) throws -> Timestamp? {
        try latestEventTime(notAfter: now)
    }
}
