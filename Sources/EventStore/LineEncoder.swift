import FunnelModel
import LogFiles
import LineParsing

/// Encodes a line's stored body on the ingest path from its shape's cuts, reusing its
/// buffers, straight onto the rows' bodies (`PendingEvents`).
struct LineEncoder {
    private var shaper = LineShape()

    /// The shape of the line at `lineStart..<lineEnd` of `b`, as `LineShape.shape` builds it.
    var skeleton: [UInt8] { shaper.skeleton }

    /// Picks the line's cuts and builds its shape (`LineShape.shape`).
    mutating func shape(_ env: Envelope, lineStart: Int, lineEnd: Int, in b: UnsafeBufferPointer<UInt8>) {
        shaper.shape(env, lineStart: lineStart, lineEnd: lineEnd, in: b)
    }

    /// Picks the line's cuts without building its shape (`LineShape.pickCuts`).
    mutating func pickCuts(_ env: Envelope, lineStart: Int, lineEnd: Int) {
        shaper.pickCuts(env, lineStart: lineStart, lineEnd: lineEnd)
    }

    /// A vendor line's shape, cut where its parser said (`ParsedLine.vendorCuts`).
    mutating func shape(cuts: ArraySlice<LineShape.Cut>, lineStart: Int, lineEnd: Int, in b: UnsafeBufferPointer<UInt8>) {
        shaper.shape(cuts: cuts, lineStart: lineStart, lineEnd: lineEnd, in: b)
    }

    /// A vendor line's cuts, without building its shape.
    mutating func take(_ cuts: ArraySlice<LineShape.Cut>) {
        shaper.take(cuts)
    }

    /// Appends to `body` the body for the cuts picked by `shape`, given the shape id and the
    /// atom ids of the name and step values.
    func appendBody(shapeID: Int64, nameAtom: Int64, stepAtom: Int64, in b: UnsafeBufferPointer<UInt8>, to body: inout [UInt8]) {
        Varint.append(UInt64(shapeID), to: &body)
        for c in shaper.cuts {
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
