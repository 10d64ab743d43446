import FunnelModel
import EventLog
import GRDB

/// Cuts a line into its shape and body on the ingest path, reusing its buffers.
struct LineEncoder {
    /// A value cut out of the line: batch-absolute byte range, field, and for name/step the
    /// atom id (filled in by the caller).
    struct Cut {
        var start: Int
        var end: Int
        var field: StoredLine.Field
    }
    var cuts: [Cut] = []
    var skeleton: [UInt8] = []
    var body: [UInt8] = []

    init() {
        cuts.reserveCapacity(8)
        skeleton.reserveCapacity(512)
        body.reserveCapacity(1024)
    }

    /// Picks the cuts of a line at `lineStart..<lineEnd` of `b` and builds its skeleton.
    mutating func shape(_ env: Envelope, lineStart: Int, lineEnd: Int, in b: UnsafeBufferPointer<UInt8>) {
        pickCuts(env, lineStart: lineStart, lineEnd: lineEnd)
        skeleton.removeAll(keepingCapacity: true)
        var pos = lineStart
        for c in cuts {
            skeleton.append(contentsOf: UnsafeBufferPointer(rebasing: b[pos..<c.start]))
            skeleton.append(0)
            skeleton.append(c.field.rawValue)
            pos = c.end
        }
        skeleton.append(contentsOf: UnsafeBufferPointer(rebasing: b[pos..<lineEnd]))
    }

    /// Picks the cuts of a line at `lineStart..<lineEnd`, in line order (none when they
    /// overlap), without building its skeleton.
    mutating func pickCuts(_ env: Envelope, lineStart: Int, lineEnd: Int) {
        cuts.removeAll(keepingCapacity: true)
        func add(_ r: StringRef?, _ f: StoredLine.Field) {
            guard let r, Int(r.start) >= lineStart, Int(r.end) <= lineEnd else { return }
            cuts.append(Cut(start: Int(r.start), end: Int(r.end), field: f))
        }
        add(env.eventID, .eventID)
        add(env.name, .name)
        add(env.userID, .user)
        add(env.timeText, .ts)
        add(env.flow, .flow)
        add(env.step, .step)
        if let p = env.properties, p.lowerBound >= lineStart, p.upperBound <= lineEnd {
            cuts.append(Cut(start: p.lowerBound, end: p.upperBound, field: .properties))
        }
        // Line order (insertion sort: at most seven cuts).
        if cuts.count > 1 {
            for i in 1..<cuts.count {
                var j = i
                while j > 0 && cuts[j - 1].start > cuts[j].start {
                    cuts.swapAt(j - 1, j)
                    j -= 1
                }
            }
        }
        // Overlapping cuts cannot happen for distinct top-level fields; if they ever did,
        // keep the line whole.
        var previousEnd = lineStart
        for c in cuts {
            if c.start < previousEnd { cuts.removeAll(keepingCapacity: true); break }
            previousEnd = c.end
        }
    }

    /// The body for the cuts picked by `shape`, given the shape id and the atom ids of the
    /// name and step values.
    mutating func body(shapeID: Int64, nameAtom: Int64, stepAtom: Int64, in b: UnsafeBufferPointer<UInt8>) {
        body.removeAll(keepingCapacity: true)
        Varint.append(UInt64(shapeID), to: &body)
        for c in cuts {
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

    /// A body holding the line itself.
    mutating func verbatim(_ line: UnsafeBufferPointer<UInt8>) {
        body.removeAll(keepingCapacity: true)
        body.append(0)
        body.append(contentsOf: line)
    }
}
