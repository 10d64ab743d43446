import FunnelModel
import LogFiles
import LogSources
import StoreCore

/// Stored lines decoded back into events, as the SQLite store decodes its own: a line of an
/// input read through a source (a vendor's) is mapped by it to the native line decoded.
public struct RecordedLines {
    private var decoder = EventDecoder()
    private var cache = EventCache()
    /// The cutters of the inputs read through a source.
    private var cutters = SourceCutters()
    /// The shapes the lines are rebuilt from, and the room a line is rebuilt in.
    private let shapes: ClickHouseShapes
    private var rebuilt: [UInt8] = []

    /// The columns `event(from:)` reads, in its order.
    public static let columns = "seq, input_id, " + ClickHouseShapes.lineColumns

    /// The event of a stored line; a line that no longer decodes is a store fault.
    public init(sources: [Int64: SourceMapping] = [:], shapes: ClickHouseShapes) {
        self.shapes = shapes
        for (input, mapping) in sources { cutters.add(SourceCutter(mapping), input: input) }
    }

    /// The event of the row whose `columns` `r` reads next; `keepLine`: whether the event
    /// carries its line's text (a fold does not read it).
    public mutating func event(from r: inout RowBinaryReader, keepLine: Bool = true) throws -> RecordedEvent {
        let seq = Int64(bitPattern: try r.uint64())
        let input = Int64(try r.uint32())
        let whole = try shapes.line(from: &r, seq: seq, into: &rebuilt)
        return try event(seq: seq, input: input, line: whole ?? rebuilt[...], keepLine: keepLine)
    }

    /// `input`: the input the line came from (its `input_id`); `keepLine`: whether the event
    /// carries its line's text (a fold does not read it).
    mutating func event(seq: Int64, input: Int64, line: ArraySlice<UInt8>, keepLine: Bool = true) throws -> RecordedEvent {
        // Mapped in place: the cutter keeps its buffers from line to line.
        switch line.withUnsafeBufferPointer({ cutters.nativeLine(input: input, $0) }) {
        case nil: return try decoded(seq: seq, line, shown: nil, keepLine: keepLine)
        case .success(let native)?: return try decoded(seq: seq, native[...], shown: line, keepLine: keepLine)
        case .failure(let r)?:
            throw StoreError(doing: "reading event seq \(seq)", reason: "the stored vendor line no longer maps: \(r)", kind: .corrupt)
        }
    }

    /// The event of `line`, with `shown` (else `line`) as its text.
    private mutating func decoded(seq: Int64, _ line: ArraySlice<UInt8>, shown: ArraySlice<UInt8>?, keepLine: Bool) throws -> RecordedEvent {
        try line.withUnsafeBufferPointer { b in
            switch decoder.envelope(b) {
            case .success(let env):
                return RecordedEvent(seq: seq, event: decoder.event(from: env, in: b, cache: &cache),
                                     line: keepLine ? String(decoding: shown ?? line, as: UTF8.self) : "")
            case .failure(let r):
                throw StoreError(doing: "reading event seq \(seq)", reason: "the stored line no longer decodes: \(r.text)", kind: .corrupt)
            }
        }
    }
}

extension ClickHouseStore {
    /// Stored lines' decoder, with the sources of the inputs read through one.
    public func recordedLines() throws -> RecordedLines {
        var sources: [Int64: SourceMapping] = [:]
        try rows(coordinator, """
            SELECT id, any(source), any(source_flow) FROM inputs WHERE source IS NOT NULL GROUP BY id
            """, doing: "reading the inputs' sources") { r in
            let id = Int64(try r.uint32())
            let json = try r.nullableString() ?? ""
            let flow = try r.nullableString()
            guard let mapping = InputSourceRecord(definitionJSON: json, defaultFlow: flow).mapping else {
                throw StoreError(doing: "reading input \(id)", reason: "its recorded source definition does not read", kind: .corrupt)
            }
            sources[id] = mapping
        }
        return RecordedLines(sources: sources, shapes: try ClickHouseShapes.load(self))
    }
}
