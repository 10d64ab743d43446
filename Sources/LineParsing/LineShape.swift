import LogFiles

/// A line's shape: the line with the values of event_id, event, user_id, ts, flow, step and
/// properties cut out, each cut marked by a 0x00 byte and the field's code (0x00 never occurs
/// in a valid JSON line). Most lines share their layout and differ only in these values, so a
/// store can keep each shape once and a line as its shape and values. Built on the parsing
/// thread; the codes are part of the stored format.
package struct LineShape {
    /// The envelope values a shape cuts out, by their stored code.
    package enum Field: UInt8 {
        case eventID = 1, name, user, ts, flow, step, properties
    }

    /// A value cut out of the line: batch-absolute byte range and field.
    package struct Cut {
        package var start: Int
        package var end: Int
        package var field: Field
    }

    /// The cuts picked last, in line order (empty: the line is kept whole).
    package private(set) var cuts: [Cut] = []
    /// The shape built last.
    package private(set) var skeleton: [UInt8] = []

    package init() {
        cuts.reserveCapacity(8)
        skeleton.reserveCapacity(512)
    }

    /// Picks the cuts of a line at `lineStart..<lineEnd` of `b` and builds its skeleton.
    package mutating func shape(_ env: Envelope, lineStart: Int, lineEnd: Int, in b: UnsafeBufferPointer<UInt8>) {
        pickCuts(env, lineStart: lineStart, lineEnd: lineEnd)
        buildSkeleton(lineStart: lineStart, lineEnd: lineEnd, in: b)
    }

    /// Takes `given` (in line order, within the line) as the cuts of the line at
    /// `lineStart..<lineEnd` of `b` and builds its skeleton: a line that is not funnel's own
    /// (a vendor's) is cut where its parser says.
    package mutating func shape(cuts given: ArraySlice<Cut>, lineStart: Int, lineEnd: Int, in b: UnsafeBufferPointer<UInt8>) {
        take(given)
        buildSkeleton(lineStart: lineStart, lineEnd: lineEnd, in: b)
    }

    /// Takes `given` as the line's cuts without building its skeleton.
    package mutating func take(_ given: ArraySlice<Cut>) {
        cuts.removeAll(keepingCapacity: true)
        cuts.append(contentsOf: given)
    }

    /// The skeleton of the line at `lineStart..<lineEnd` of `b` for the cuts picked.
    private mutating func buildSkeleton(lineStart: Int, lineEnd: Int, in b: UnsafeBufferPointer<UInt8>) {
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
    package mutating func pickCuts(_ env: Envelope, lineStart: Int, lineEnd: Int) {
        cuts.removeAll(keepingCapacity: true)
        func add(_ r: StringRef?, _ f: Field) {
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
        sortCuts()
        // Overlapping cuts cannot happen for distinct top-level fields; if they ever did,
        // keep the line whole.
        var previousEnd = lineStart
        for c in cuts {
            if c.start < previousEnd { cuts.removeAll(keepingCapacity: true); break }
            previousEnd = c.end
        }
    }

    /// Puts the cuts in line order (insertion sort: at most seven cuts).
    private mutating func sortCuts() {
        Self.sort(&cuts[...])
    }

    /// Puts `cuts` in line order (insertion sort: a line has few).
    package static func sort(_ cuts: inout ArraySlice<Cut>) {
        guard cuts.count > 1 else { return }
        for i in (cuts.startIndex + 1)..<cuts.endIndex {
            var j = i
            while j > cuts.startIndex && cuts[j - 1].start > cuts[j].start {
                cuts.swapAt(j - 1, j)
                j -= 1
            }
        }
    }
}
