import FunnelModel
import LogFiles
import Foundation

/// Numbers an input's keys, users and shapes on the parsing thread (one per input).
struct LineKeyer {
    private var keys = ByteInterner()
    private var users = ByteInterner()
    private var shapes = ByteInterner()
    private var shaper = LineShape()
    private var templates = ShapeTemplates()

    init() {}

    /// The envelope and shape of a line (alone in `line`) of a shape the input had before,
    /// without parsing it in full; nil: parse it with `EventDecoder`.
    mutating func match(_ line: UnsafeBufferPointer<UInt8>) -> ShapeTemplates.Match? { templates.match(line) }

    /// The keys of the line at `start..<end` of `b`, its envelope's refs into `b`; `shape`:
    /// its shape's number when `match` found it; `cuts`: a vendor line's cuts (its shape is
    /// not learnt as a template, which reads funnel's own lines).
    mutating func keys(_ env: Envelope, start: Int, end: Int, in b: UnsafeBufferPointer<UInt8>,
                       shape known: Int32? = nil, cuts: UnsafeBufferPointer<LineShape.Cut>? = nil) -> LineKeys {
        var out = LineKeys()
        out.idHash = EventIdentity.idHash(env.eventID.bytes(in: b))
        out.key = Int32(LineKeyer.withKey(env, in: b) { keys.intern($0).id })
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

    /// Calls `body` with the line's (flow, step, event) key: its flow, 0xFF, its step (0xFE
    /// for none), 0xFF, its event name, copied into temporary memory.
    private static func withKey<R>(_ env: Envelope, in b: UnsafeBufferPointer<UInt8>,
                                   _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let flow = env.flow.bytes(in: b), step = env.step?.bytes(in: b), name = env.name.bytes(in: b)
        let count = flow.count + (step?.count ?? 1) + name.count + 2
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { key in
            var at = 0
            func put(_ part: UnsafeBufferPointer<UInt8>) {
                if let from = part.baseAddress, let to = key.baseAddress, part.count > 0 {
                    (to + at).update(from: from, count: part.count)
                }
                at += part.count
            }
            func put(_ byte: UInt8) {
                key[at] = byte
                at += 1
            }
            put(flow)
            put(0xFF)
            if let step { put(step) } else { put(0xFE) }
            put(0xFF)
            put(name)
            return body(UnsafeBufferPointer(key))
        }
    }

    /// The shape's number, a new one while the input's shapes are within their bounds.
    private mutating func number(_ skeleton: UnsafeBufferPointer<UInt8>) -> Int? {
        if shapes.count < Tuning.inputShapes, shapes.byteCount + skeleton.count <= Tuning.inputShapeBytes {
            return shapes.intern(skeleton).id
        }
        return shapes.lookup(skeleton)
    }
}
