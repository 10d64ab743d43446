import FunnelModel
import LogFiles
import StoreCore

/// Stored lines decoded back into events, as the SQLite store decodes its own.
public struct RecordedLines {
    private var decoder = EventDecoder()
    private var cache = EventCache()

    /// The event of a stored line; a line that no longer decodes is a store fault.
    public init() {}

    /// `keepLine`: whether the event carries its line's text (a fold does not read it).
    public mutating func event(seq: Int64, line: ArraySlice<UInt8>, keepLine: Bool = true) throws -> RecordedEvent {
        try line.withUnsafeBufferPointer { b in
            switch decoder.envelope(b) {
            case .success(let env):
                return RecordedEvent(seq: seq, event: decoder.event(from: env, in: b, cache: &cache),
                                     line: keepLine ? String(decoding: b, as: UTF8.self) : "")
            case .failure(let r):
                throw StoreError(doing: "reading event seq \(seq)", reason: "the stored line no longer decodes: \(r.text)", kind: .corrupt)
            }
        }
    }
}
