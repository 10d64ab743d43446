import LineParsing
import StoreCore

extension ClickHouseIngestor {
    /// One input's writer under its attempt, as the ingest driver drives it. A ClickHouse
    /// input commits once, with its ledger row: its sinks never end it in segments.
    package final class InputSession: InputWriting {
        var writer: ClickHouseInputWriter
        package var eventSink: (any ParsedEventSink)?

        init(_ writer: ClickHouseInputWriter) { self.writer = writer }

        package var lines: Int { writer.result.counts.lines }

        package func write(_ batch: LineBatch) throws { try writer.write(batch) }

        package func idle() throws {}

        package func endSegment(_ segment: SegmentEnd) throws {
            throw StoreError(doing: "writing \(writer.label) to ClickHouse", reason: "an input is committed whole, not in segments")
        }
    }
}
