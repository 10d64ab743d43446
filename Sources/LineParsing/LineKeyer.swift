import FunnelModel
import LogFiles
import Foundation

/// Numbers an input's keys, users and shapes on the parsing thread (one per input).
struct LineKeyer {
    private var keys = ByteInterner()
    private var users = ByteInterner()
    private var shapes = ByteInterner()
    private var key: [UInt8] = []
    private var shaper = LineShape()
    private var templates = ShapeTemplates()

    init() { key.reserveCapacity(256) }

    /// The envelope and shape of a line (alone in `line`) of a shape the input had before,
    /// without parsing it in full; nil: parse it with `EventDecoder`.
    mutating func match(_ line: UnsafeBufferPointer<UInt8>) -> ShapeTemplates.Match? { templates.match(line) }

    /// The keys of the line at `start..<end` of `b`, its envelope's refs into `b`; `shape`:
    /// its shape's number when `match` found it; `cuts`: a vendor line's cuts (its shape is
    /// not learnt as a template, which reads funnel's own lines).
    mutating func keys(_ env: Envelope, start: Int, end: Int, in b: UnsafeBufferPointer<UInt8>,
                       shape known: Int32? = nil, cuts: ArraySlice<LineShape.Cut>? = nil) -> LineKeys {
        var out = LineKeys()
        out.idHash = EventIdentity.idHash(env.eventID.bytes(in: b))
        key.removeAll(keepingCapacity: true)
        key.append(contentsOf: env.flow.bytes(in: b))
        key.append(0xFF)
        if let s = env.step { key.append(contentsOf: s.bytes(in: b)) } else { key.append(0xFE) }
        key.append(0xFF)
        key.append(contentsOf: env.name.bytes(in: b))
        out.key = Int32(key.withUnsafeBufferPointer { keys.intern($0).id })
        out.user = Int32(users.intern(env.userID.bytes(in: b)).id)
        if let known {
            out.shape = known
            return out
        }
        if let cuts {
            shaper.shape(cuts: cuts, lineStart: start, lineEnd: end, in: b)
        } else {
            shaper.shape(env, lineStart: start, lineEnd: end, in: b)
        }
        if !shaper.cuts.isEmpty, let shape = shaper.skeleton.withUnsafeBufferPointer({ number($0) }) {
            out.shape = Int32(shape)
            if cuts == nil { templates.learn(shape: out.shape, cuts: shaper.cuts, env: env, line: start..<end, in: b) }
        }
        return out
    }

    /// The shape's number, a new one while the input's shapes are within their bounds.
    private mutating func number(_ skeleton: UnsafeBufferPointer<UInt8>) -> Int? {
        if shapes.count < Tuning.inputShapes, shapes.byteCount + skeleton.count <= Tuning.inputShapeBytes {
            return shapes.intern(skeleton).id
        }
        return shapes.lookup(skeleton)
    }
}
