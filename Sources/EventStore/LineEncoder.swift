import FunnelModel
import LogFiles
import LineParsing

/// Encodes a line's stored body on the ingest path from its shape's cuts, reusing its
/// buffers, straight onto the rows' bodies (`PendingEvents`).
struct LineEncoder {
    /// Picks each line's cuts and numbers the input's shapes (`ShapeCutter`).
    var cutter = ShapeCutter()

    /// Appends to `body` the body for the cuts picked last (`cutter`), given the shape id and the
    /// atom ids of the name and step values.
    func appendBody(shapeID: Int64, nameAtom: Int64, stepAtom: Int64, in b: UnsafeBufferPointer<UInt8>, to body: inout [UInt8]) {
        Varint.append(UInt64(shapeID), to: &body)
        for c in cutter.cuts {
            switch c.field {
            case .eventID, .ts, .properties:
                Varint.append(UInt64(c.end - c.start), to: &body)
                body.append(contentsOf: UnsafeBufferPointer(rebasing: b[c.start..<c.end]))
            case .name: Varint.append(UInt64(nameAtom), to: &body)
            case .step: Varint.append(UInt64(stepAtom), to: &body)
            case .user, .flow: break
            }
        }
    }

    /// Appends to `body` a body holding the line itself.
    static func appendVerbatim(_ line: UnsafeBufferPointer<UInt8>, to body: inout [UInt8]) {
        body.append(0)
        body.append(contentsOf: line)
    }
}
