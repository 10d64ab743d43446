import FunnelModel
import GRDB

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

/// Takes the decoded events of one input on the parsing thread.
public protocol ParsedEventSink: AnyObject, Sendable {
    /// One event with its line number (its `id` left empty: the writer has the line) and its
    /// user's number among the input's (`LineKeys.user`: numbered in first-seen order, equal
    /// numbers are the same user id). Whether the line was accepted, and with which seq,
    /// `CommittedInput.accepted` tells.
    func take(line: Int, user: Int32, event: consuming Event)
    /// Events it can still take before it drops some (their users are then folded from the
    /// log), and events it holds. Once it holds as many as it has room for, the first event of
    /// a new UTC day ends the input's segment: the ingest commits the input so far, and the
    /// next events go to `successor()`.
    var room: Int { get }
    var held: Int { get }
    /// An empty sink for the events of the input's next segment; nil: none, this one drops
    /// what does not fit.
    func successor() -> (any ParsedEventSink)?
}

extension ParsedEventSink {
    public var room: Int { .max }
    public var held: Int { 0 }
    public func successor() -> (any ParsedEventSink)? { nil }
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

/// An input's accepted lines with their seqs, as runs of consecutive lines given consecutive
/// seqs, in line order. Only a line that is not accepted starts a new run, so this stays
/// small however long the input.
public struct AcceptedLines: Sendable {
    private var runs: [(line: Int, seq: Int64, count: Int)] = []

    public init() {}

    /// Records that `line` was accepted as `seq` (lines in increasing order).
    @inline(__always)
    public mutating func append(line: Int, seq: Int64) {
        if let last = runs.last, last.line + last.count == line, last.seq + Int64(last.count) == seq {
            runs[runs.count - 1].count += 1
        } else {
            runs.append((line, seq, 1))
        }
    }

    /// The seq `line` was accepted as; nil when it was not accepted (a duplicate, a conflict).
    public func seq(ofLine line: Int) -> Int64? {
        // The last run starting at or before the line.
        let lo = partitionPoint(runs.count) { runs[$0].line <= line }
        guard lo > 0 else { return nil }
        let run = runs[lo - 1]
        return line < run.line + run.count ? run.seq + Int64(line - run.line) : nil
    }
}
