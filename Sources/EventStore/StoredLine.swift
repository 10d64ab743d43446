import FunnelModel
import LogFiles
import LineParsing
import GRDB

/// How an event's line is kept: byte for byte, but small.
///
/// A line's *shape* (`LineShape`: the line with its envelope values cut out) is interned in
/// the `shapes` table. The row's `body` is the shape id followed by the cut values in line
/// order: event_id, ts and properties as length-prefixed bytes, event name and step as atom
/// ids; user and flow come from the row's own atom columns. A value written with escapes is not cut (it stays in the
/// shape), and a body whose shape id is 0 holds the line itself. A vendor's line is cut where
/// its parser says (`VendorLine.appendCuts`): its id and time as written, its user, flow,
/// name and step where they are the event's own bytes, and, coded as properties (bytes as
/// written), every run of members no field reads, so its shape keeps only what repeats.
package enum StoredLine {
    /// The event id of a stored line (unescaped), or nil when the line is not a valid event.
    static func eventID(of line: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var decoder = EventDecoder()
        guard case .success(let env) = decoder.envelope(line) else { return nil }
        let r = env.eventID
        return r.inScratch ? Array(decoder.scratch[Int(r.start)..<Int(r.end)]) : Array(line[Int(r.start)..<Int(r.end)])
    }
}
