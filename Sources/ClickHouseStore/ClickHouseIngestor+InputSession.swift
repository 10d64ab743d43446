import LineParsing
import StoreCore

extension ClickHouseIngestor {
    /// One input's writer under its attempt, as the ingest driver drives it. A ClickHouse
    /// input commits once, with its ledger row: its sinks never end it in segments.
    package final class InputSession: InputWriting {
        var writer: ClickHouseInputWriter
        package var eventSink: (any ParsedEventSink)?
        package let lookupLines: Int
        package var lookupBytes: Int { Tuning.chunkBytes }
        /// A lookup may not see the chunk whose inserts are still under way.
        package var lookupSeesWrites: Bool { false }

        init(_ writer: ClickHouseInputWriter, chunkRows: Int) {
            self.writer = writer
            lookupLines = chunkRows
        }

        package func storedCopies(of ids: EventIDQuery) throws -> StoredCopies { try writer.storedCopies(of: ids) }

        package func write(_ chunk: DecidedChunk) throws { try writer.write(chunk) }

        package func idle() throws {}

        package func endSegment(_ segment: SegmentEnd, totals: SegmentTotals) throws {
            throw StoreError(doing: "writing \(writer.label) to ClickHouse", reason: "an input is committed whole, not in segments")
        }
    }
}
