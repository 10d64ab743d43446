import FunnelModel
import LogFiles
import LineParsing

/// Encodes a line's stored body on the ingest path from its shape's cuts, reusing its
/// buffers, straight onto the rows' bodies (`PendingEvents`).
struct LineEncoder {
    /// Picks each line's cuts and numbers the input's shapes (`ShapeCutter`).
    var cutter = ShapeCutter()

    /// Appends to `body` the body for the cuts picked last (`cutter`), given the shape id and the
    /// atom ids of the name and step values: the shape id, then per cut in line order its
    /// value's length and bytes (event id, time, properties) or its atom id (name, step).
    /// Written through one pointer into temporary memory, then appended at once.
    func appendBody(shapeID: Int64, nameAtom: Int64, stepAtom: Int64, in b: UnsafeBufferPointer<UInt8>, to body: inout [UInt8]) {
        let cuts = cutter.cuts
        var room = Varint.maxBytes * (1 + cuts.count)
        for c in cuts where c.field.keepsBytes { room += c.end - c.start }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { out in
            guard let base = out.baseAddress, let line = b.baseAddress else { return }
            var at = base
            at += Varint.write(UInt64(shapeID), to: at)
            for c in cuts {
                switch c.field {
                case .eventID, .ts, .properties:
                    at += Varint.write(UInt64(c.end - c.start), to: at)
                    at.update(from: line + c.start, count: c.end - c.start)
                    at += c.end - c.start
                case .name: at += Varint.write(UInt64(nameAtom), to: at)
                case .step: at += Varint.write(UInt64(stepAtom), to: at)
                case .user, .flow: break
                }
            }
            body.append(contentsOf: UnsafeBufferPointer(start: base, count: at - base))
        }
    }

    /// Appends to `body` a body holding the line itself.
    static func appendVerbatim(_ line: UnsafeBufferPointer<UInt8>, to body: inout [UInt8]) {
        body.append(0)
        body.append(contentsOf: line)
    }
}
