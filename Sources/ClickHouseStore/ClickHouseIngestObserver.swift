import StoreCore
import LineParsing

/// Keeps something derived from the log current during a ClickHouse ingest (the journeys'
/// report facts): each input's parsed events go to a sink of the observer's, and once the
/// input's ledger row is in, the observer learns which of its lines were accepted, with
/// which seqs. `finish` runs after the last input, when the ingest did not fail.
public protocol ClickHouseIngestObserver: AnyObject {
    /// A new sink for one input's parsed events, asked for before the input is read; it must
    /// not end the input in segments (`ParsedEventSink.successor` nil).
    func makeEventSink() -> any ParsedEventSink
    /// After an input committed under `attempt`: its sink, and its accepted lines.
    func didCommit(events: any ParsedEventSink, attempt: UInt64, accepted: AcceptedLines)
    /// After the last input, with what the ingest did.
    func finish(store: ClickHouseStore, summary: IngestSummary) throws
}
