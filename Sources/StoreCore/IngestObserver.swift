import LineParsing

/// Keeps something derived from the log (a store's projection) current during ingest, on
/// every store. Per input: its parsed events go to a sink of the observer's; the store tells
/// the observer what the input committed before the commit, where the observer's writes
/// commit with the events (`willCommit`, in the store's `Transaction`), and after it
/// (`didCommit`); `finish` runs once after the last input of an ingest that did not fail.
public protocol IngestObserver<Transaction, Store>: AnyObject {
    /// Where the observer writes with an input: SQLite's open transaction; ClickHouse's
    /// attempt, whose rows count once its ledger row is in.
    associatedtype Transaction
    /// The store, for work after a commit.
    associatedtype Store
    /// A new sink for one input's parsed events, asked for before the input is read. The next
    /// input may be read ahead, into its own sink, while this one is still being written; the
    /// sink of an input that is skipped is dropped unused.
    func makeEventSink() -> any ParsedEventSink
    /// Called after each chunk of an input's lines is written, and while the writing thread
    /// waits for the next batch, where the store writes in a transaction.
    func betweenBatches(in transaction: Transaction) throws
    /// Called once per committed part of an input (the input, or one of its segments), after
    /// its last line and before its commit. With `input.more`, the observer may leave the
    /// input's work for later (`didCommit` starts it off the writing thread, the next
    /// `willCommit` or `finish` writes it), provided the store records what is left undone,
    /// so that a run killed in between is completed by the next one.
    func willCommit(_ input: CommittedInput, in transaction: Transaction) throws
    /// Called after the input (or segment) committed (not for a skipped input); a store that
    /// commits several inputs together calls it for each, in order, after that commit.
    func didCommit(_ input: CommittedInput, store: Store)
    /// Called once after the last input of an ingest, outside any transaction: the place to
    /// write work left for later.
    func finish(_ summary: IngestSummary, store: Store) throws
}

extension IngestObserver {
    public func betweenBatches(in transaction: Transaction) throws {}
    public func willCommit(_ input: CommittedInput, in transaction: Transaction) throws {}
    public func didCommit(_ input: CommittedInput, store: Store) {}
    public func finish(_ summary: IngestSummary, store: Store) throws {}
}

/// What one input (or one segment of it) committed, as its observer is told.
public struct CommittedInput: Sendable {
    /// The seqs its accepted events got, in line order (empty when it added none). The
    /// store's last seq with this input in is `seqs.upperBound - 1`.
    public var seqs: Range<Int64>
    /// Which of its lines were accepted, with their seqs.
    public var accepted: AcceptedLines
    /// Users whose first events in the store (any flow) arrived with this input; nil where
    /// the store does not tell.
    public var newUsers: Set<String>?
    /// The sink `IngestObserver.makeEventSink` gave for this input, holding its parsed events.
    public var events: any ParsedEventSink
    /// Whether the observer may leave its work for after the commit: another input of the
    /// same ingest follows, and the store commits right after `willCommit` (false for an
    /// input that shares its transaction with the inputs after it: its work is done in it,
    /// see `sharesTransaction`).
    public var more: Bool
    /// Whether the store goes on with the next input of the same ingest in this transaction
    /// (it commits them together): the observer may leave work that reads nothing of the
    /// store running beside the writer, provided the next `willCommit` (or `finish`) writes it.
    public var sharesTransaction: Bool

    package init(seqs: Range<Int64>, accepted: AcceptedLines, newUsers: Set<String>?, events: any ParsedEventSink, more: Bool,
                 sharesTransaction: Bool = false) {
        self.seqs = seqs
        self.accepted = accepted
        self.newUsers = newUsers
        self.events = events
        self.more = more
        self.sharesTransaction = sharesTransaction
    }

    /// The seq of the input's first accepted event, `.max` when it added none.
    public var firstSeq: Int64 { seqs.isEmpty ? .max : seqs.lowerBound }
    /// The store's last seq once this input is in.
    public var lastSeq: Int64 { seqs.upperBound - 1 }
}
