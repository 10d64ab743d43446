import LogFiles
import LineParsing

/// One input as the driver hands it to a store: the file to read, the name the ledger and the
/// summary give it, its content hash, and its place in the run.
package struct InputPlan: Sendable {
    /// What to read: the input (a file, or an entry of a zip archive), or for standard input
    /// its spooled copy.
    package var read: InputSource
    package var label: String
    package var content: InputContent.Hash
    package var index: Int
    package var count: Int
    /// About how many lines the run's inputs after this one hold at most
    /// (`InputSource.expectedLines`): what a store sizes for once, rather than for each input
    /// as it comes.
    package var linesAfter: Int64 = 0
    /// The source its lines are read through (a vendor's export); nil: funnel's own lines.
    package var source: InputSourceRecord? = nil

    /// Whether no input of the run follows.
    package var isLast: Bool { index + 1 == count }
}

/// What a store made of one input: skipped (the ledger holds its content) or read.
package enum InputOutcome {
    case skipped(IngestSummary.Skipped)
    case read(InputResult)
}

/// A store's writer for one input, driven chunk by chunk by `IngestDriver` on one thread. The
/// driver decides every line (`LineClassifier`); the writer looks ids up and records lines.
package protocol InputWriting: AnyObject {
    /// Where the input's decoded events go: set by the driver before the first batch (nil:
    /// nothing derived is kept).
    var eventSink: (any ParsedEventSink)? { get set }
    /// Lines, and bytes, the driver gathers before it decides them: their ids are looked up
    /// together (one lookup may cost a scan of the store's ids).
    var lookupLines: Int { get }
    var lookupBytes: Int { get }
    /// Whether a lookup sees every line written before it; if not, the driver checks the
    /// last chunk written itself.
    var lookupSeesWrites: Bool { get }
    /// The stored events that have any of `ids`, each with its line as it arrived (the first
    /// arrival when two have one id); this input's earlier chunks included.
    func storedCopies(of ids: EventIDQuery) throws -> StoredCopies
    /// Records a decided chunk: quarantined lines, duplicates, conflicts, and new events
    /// appended in line order.
    func write(_ chunk: DecidedChunk) throws
    /// Runs while no batch has come for a few milliseconds.
    func idle() throws
    /// Commits the input up to here as one segment (`totals`: the input's counts so far and
    /// the flows' events since the segment before), with the events `segment.ended` holds; its
    /// later events go on to `eventSink`.
    func endSegment(_ segment: SegmentEnd, totals: SegmentTotals) throws
}

/// What an input added up to at the end of one of its segments.
package struct SegmentTotals {
    package var counts: InputCounts
    /// Each flow's events accepted since the segment before, and their time span.
    package var flows: [String: FlowTotal]
}

/// How the driver read one input into a store's writer: how the parse ended, what the input
/// added up to, and the ledger's error text (nil: read to its end).
package struct InputRead {
    package var end: ParseEnd
    package var result: InputResult
    package var error: String?
    /// Each flow's events accepted since the input's last segment, and their time span.
    package var flows: [String: FlowTotal]
}

/// What the one ingest driver (`IngestDriver`) asks of a store: the ledger, a writer per
/// input, the commit (of one input, or of several small ones at `flush` or when the store
/// sees fit), and a sink for what it derives from the events.
package protocol IngestBackend: AnyObject {
    associatedtype Writer: InputWriting
    /// A new sink for one input's decoded events; nil when the store keeps nothing derived.
    func makeEventSink() -> (any ParsedEventSink)?
    /// Ingests one input: the ledger's word on it first (skip it, go on after the lines an
    /// earlier run committed, or read it new); unless it is skipped, `drive` parses it into
    /// the store's writer from the line after `skipLines` and says what it read; then the
    /// store commits what the writer wrote, with the input's ledger row.
    func ingest(_ input: InputPlan, drive: (_ skipLines: Int, _ writer: Writer) throws -> InputRead) throws -> InputOutcome
    /// Commits the inputs `ingest` returned but left uncommitted (a store may commit several
    /// small ones together; each is then in its ledger, or none is, after a kill). The driver
    /// calls it after the last input, before `finish`, and before it waits on standard input.
    func flush() throws
    /// After the last input, with what the run did.
    func finish(_ summary: IngestSummary) throws
}
