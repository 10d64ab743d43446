import FunnelModel
import GRDB
import LineParsing
import StoreCore

/// Keeps something derived from the log (a projection) current during ingest. Per input: the
/// input's parsed events go to a sink of the observer's; inside the input's transaction the
/// observer is told what the input committed, so that what it writes commits with the events.
public protocol IngestObserver: AnyObject {
    /// A new sink for one input's parsed events, asked for before the input is read. The next
    /// input may be read ahead, into its own sink, while this one is still being written; the
    /// sink of an input that is skipped is dropped unused.
    func makeEventSink() -> any ParsedEventSink
    /// Called inside an input's transaction after each batch of its lines is written, and
    /// while the writing thread waits for the next batch.
    func betweenBatches(in db: Database) throws
    /// Called once per input, inside its transaction, after its last batch and ledger row.
    /// With `input.more`, the observer may leave the input's work for later (`didCommit`
    /// starts it off the writing thread, the next `willCommit` or `finish` writes it),
    /// provided the store records what is left undone, so that a run killed in between is
    /// completed by the next one.
    func willCommit(_ input: CommittedInput, in db: Database) throws
    /// Called after an input's transaction committed (not for a skipped input).
    func didCommit(store: EventStore)
    /// Called once after the last input of an ingest, outside any transaction: the place to
    /// write work left for later.
    func finish(store: EventStore) throws
}

extension IngestObserver {
    public func betweenBatches(in db: Database) throws {}
    public func didCommit(store: EventStore) {}
    public func finish(store: EventStore) throws {}
}

/// What one input committed, as its observer is told inside the input's transaction.
public struct CommittedInput: Sendable {
    /// The seqs its accepted events got, in line order (empty when it added none). The
    /// store's last seq with this input in is `seqs.upperBound - 1`.
    public var seqs: Range<Int64>
    /// Which of its lines were accepted, with their seqs.
    public var accepted: AcceptedLines
    /// Users whose first events in the store (any flow) arrived with this input.
    public var newUsers: Set<String>
    /// The sink `IngestObserver.makeEventSink` gave for this input, holding its parsed events.
    public var events: any ParsedEventSink
    /// Whether another input of the same ingest follows.
    public var more: Bool

    /// The seq of the input's first accepted event, `.max` when it added none.
    public var firstSeq: Int64 { seqs.isEmpty ? .max : seqs.lowerBound }
    /// The store's last seq once this input is in.
    public var lastSeq: Int64 { seqs.upperBound - 1 }
}
