import EventLog
import LineParsing

/// One input as the driver hands it to a store: the file to read, the name the ledger and the
/// summary give it, its content hash, and its place in the run.
package struct InputPlan: Sendable {
    /// The file to read (for standard input, its spooled copy).
    package var path: String
    package var label: String
    package var content: InputContent.Hash
    package var index: Int
    package var count: Int

    /// Whether no input of the run follows.
    package var isLast: Bool { index + 1 == count }
}

/// What a store made of one input: skipped (the ledger holds its content) or read.
package enum InputOutcome {
    case skipped(IngestSummary.Skipped)
    case read(InputResult)
}

/// A store's writer for one input, driven batch by batch by `IngestDriver` on one thread.
package protocol InputWriting: AnyObject {
    /// Where the input's decoded events go: set by the driver before the first batch (nil:
    /// nothing derived is kept).
    var eventSink: (any ParsedEventSink)? { get set }
    /// The input's lines written so far (those of an earlier run included when it resumed).
    var lines: Int { get }
    /// Writes one parsed batch.
    func write(_ batch: LineBatch) throws
    /// Runs while no batch has come for a few milliseconds.
    func idle() throws
    /// Commits the input up to here as one segment; its later events go to `segment.next`.
    func endSegment(_ segment: SegmentEnd) throws
}

/// What the one ingest driver (`IngestDriver`) asks of a store: the ledger, a writer per
/// input, the commit, and a sink for what it derives from the events.
package protocol IngestBackend: AnyObject {
    associatedtype Writer: InputWriting
    /// A new sink for one input's decoded events; nil when the store keeps nothing derived.
    func makeEventSink() -> (any ParsedEventSink)?
    /// Ingests one input: the ledger's word on it first (skip it, go on after the lines an
    /// earlier run committed, or read it new); unless it is skipped, `drive` parses it into
    /// the store's writer from the line after `skipLines` and says how the parse ended; then
    /// the store commits what the writer wrote, with the input's ledger row.
    func ingest(_ input: InputPlan, drive: (_ skipLines: Int, _ writer: Writer) throws -> ParseEnd) throws -> InputOutcome
    /// After the last input, with what the run did.
    func finish(_ summary: IngestSummary) throws
}
