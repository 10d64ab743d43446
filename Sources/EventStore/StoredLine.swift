import FunnelModel
import EventLog
import GRDB

/// How an event's line is kept: byte for byte, but small.
///
/// Most lines share their layout (keys, order, spacing, context) and differ only in their
/// envelope values. A line's *shape* is the line with the values of event_id, event, user_id,
/// ts, flow, step and properties cut out, each cut marked by a 0x00 byte and a field code
/// (0x00 never occurs in a valid JSON line); shapes are interned in the `shapes` table. The
/// row's `body` is the shape id followed by the cut values in line order: event_id, ts and
/// properties as length-prefixed bytes, event name and step as atom ids; user and flow come
/// from the row's own atom columns. A value written with escapes is not cut (it stays in the
/// shape), and a body whose shape id is 0 holds the line itself.
package enum StoredLine {
    enum Field: UInt8 {
        case eventID = 1, name, user, ts, flow, step, properties
    }

    /// 64-bit FNV-1a of the (decoded) event id: the dedupe index key.
    package static func idHash(_ b: UnsafeBufferPointer<UInt8>) -> Int64 {
        Int64(bitPattern: ByteInterner.hash(b))
    }

    /// The event id of a stored line (unescaped), or nil when the line is not a valid event.
    static func eventID(of line: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var decoder = EventDecoder()
        guard case .success(let env) = decoder.envelope(line) else { return nil }
        let r = env.eventID
        return r.inScratch ? Array(decoder.scratch[Int(r.start)..<Int(r.end)]) : Array(line[Int(r.start)..<Int(r.end)])
    }
}
