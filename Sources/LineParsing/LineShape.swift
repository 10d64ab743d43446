import LogFiles

/// A line's shape: the line with the values of event_id, event, user_id, ts, flow, step and
/// properties cut out, each cut marked by a 0x00 byte and the field's code (0x00 never occurs
/// in a valid JSON line). Most lines share their layout and differ only in these values, so a
/// store can keep each shape once and a line as its shape and values. Built on the parsing
/// thread; the codes are part of the stored format.
public struct LineShape {
    /// The envelope values a shape cuts out, by their stored code.
    public enum Field: UInt8, Sendable {
        case eventID = 1, name, user, ts, flow, step, properties
        /// The time of a line funnel parsed itself, kept as its text's form (`Timestamp.TextForm`)
        /// and written again from the event's time: only in a store's own skeletons (the
        /// embedded store's, `LineEncoder`), never in a cut.
        case formedTS
        /// An event id kept in the fewest bytes its text allows (hex digits as bytes): only in
        /// a store's own skeletons (the embedded store's), never in a cut.
        case formedID

        /// Whether a stored body may keep the value's bytes (the others are atoms, or the row's).
        /// Public and inlinable: asked for every cut of every line the writer stores.
        @inlinable
        public var keepsBytes: Bool {
            switch self {
            case .eventID, .ts, .properties, .formedTS, .formedID: true
            case .name, .user, .flow, .step: false
            }
        }
    }

    /// A value cut out of the line: batch-absolute byte range and field.
    @usableFromInline package struct Cut: Sendable {
        package var start: Int
        package var end: Int
        package var field: Field
    }

    /// The cuts picked last, in line order (empty: the line is kept whole).
    @usableFromInline package private(set) var cuts: [Cut] = []
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
    package mutating func shape<C: Collection<Cut>>(cuts given: C, lineStart: Int, lineEnd: Int, in b: UnsafeBufferPointer<UInt8>) {
        take(given)
        buildSkeleton(lineStart: lineStart, lineEnd: lineEnd, in: b)
    }

    /// Takes `given` as the line's cuts without building its skeleton.
    package mutating func take<C: Collection<Cut>>(_ given: C) {
        cuts.removeAll(keepingCapacity: true)
        cuts.append(contentsOf: given)
    }

    /// The skeleton of the line at `lineStart..<lineEnd` of `b` for the cuts picked: made
    /// its length at once (the line's less its cut values, two bytes a cut; most lines are
    /// about as long as the line before) and written in place, one copy a piece.
    private mutating func buildSkeleton(lineStart: Int, lineEnd: Int, in b: UnsafeBufferPointer<UInt8>) {
        var length = lineEnd - lineStart
        var pos = lineStart
        var ordered = lineStart >= 0 && lineEnd <= b.count
        for c in cuts {
            ordered = ordered && pos <= c.start && c.start <= c.end
            length += 2 - (c.end - c.start)
            pos = c.end
        }
        precondition(ordered && pos <= lineEnd, "cuts in line order, within the line")
        if skeleton.count < length {
            skeleton.append(contentsOf: repeatElement(0, count: length - skeleton.count))
        } else if skeleton.count > length {
            skeleton.removeLast(skeleton.count - length)
        }
        skeleton.withUnsafeMutableBufferPointer { out in
            guard let to = out.baseAddress else { return }
            // The bytes at `pos..<end` of the line to `at` (an empty buffer has only empty runs).
            @inline(__always) func copy(_ pos: Int, _ end: Int, to at: Int) {
                if end > pos, let from = b.baseAddress { (to + at).update(from: from + pos, count: end - pos) }
            }
            var pos = lineStart, at = 0
            for c in cuts {
                copy(pos, c.start, to: at)
                at += c.start - pos
                to[at] = 0
                to[at + 1] = c.field.rawValue
                at += 2
                pos = c.end
            }
            copy(pos, lineEnd, to: at)
        }
    }

    /// Picks the cuts of a line at `lineStart..<lineEnd`, in line order (none when they
    /// overlap), without building its skeleton.
    package mutating func pickCuts(_ env: Envelope, lineStart: Int, lineEnd: Int) {
        func within(_ r: Range<Int>?) -> Range<Int>? {
            guard let r, r.lowerBound >= lineStart, r.upperBound <= lineEnd else { return nil }
            return r
        }
        func range(_ r: StringRef?) -> Range<Int>? { within(r.map { Int($0.start)..<Int($0.end) }) }
        // Overlapping cuts cannot happen for distinct top-level fields; if they ever did,
        // the line is kept whole.
        Self.gathered(eventID: range(env.eventID), name: range(env.name), user: range(env.userID), ts: range(env.timeText),
                      flow: range(env.flow), step: range(env.step), properties: within(env.properties), offset: 0) { picked in
            // Written over the line before's cuts (most lines have as many, or one more or
            // less: a step or properties), not emptied and refilled.
            let count = picked?.count ?? 0
            while cuts.count > count { cuts.removeLast() }
            guard let picked else { return }
            while cuts.count < count { cuts.append(picked[cuts.count]) }
            cuts.withUnsafeMutableBufferPointer { to in
                for i in picked.indices { to[i] = picked[i] }
            }
        }
    }

    /// Appends to `cuts` the values' cuts (ranges moved by `offset`; `runs`: more bytes cut
    /// as properties are), those appended put in line order; false, with none appended,
    /// when two overlap.
    package static func append(eventID: Range<Int>?, name: Range<Int>?, user: Range<Int>?, ts: Range<Int>?,
                               flow: Range<Int>?, step: Range<Int>?, properties: Range<Int>?, runs: [Range<Int>] = [],
                               offset: Int, to cuts: inout [Cut]) -> Bool {
        gathered(eventID: eventID, name: name, user: user, ts: ts, flow: flow, step: step, properties: properties,
                 runs: runs, offset: offset) { added in
            guard let added else { return false }
            cuts.append(contentsOf: added)
            return true
        }
    }

    /// The values' cuts (as `append` takes them) gathered, sorted and checked in temporary
    /// memory, handed to `body` in line order; nil when two overlap. One room check for a
    /// line's cuts where they go, not one an append.
    @inline(__always)
    private static func gathered<R>(eventID: Range<Int>?, name: Range<Int>?, user: Range<Int>?, ts: Range<Int>?,
                                    flow: Range<Int>?, step: Range<Int>?, properties: Range<Int>?, runs: [Range<Int>] = [],
                                    offset: Int, _ body: (UnsafeMutableBufferPointer<Cut>?) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Cut.self, capacity: 7 + runs.count) { room -> R in
            var count = 0
            func add(_ r: Range<Int>?, _ f: Field) {
                guard let r else { return }
                room.initializeElement(at: count, to: Cut(start: offset + r.lowerBound, end: offset + r.upperBound, field: f))
                count += 1
            }
            add(eventID, .eventID)
            add(name, .name)
            add(user, .user)
            add(ts, .ts)
            add(flow, .flow)
            add(step, .step)
            add(properties, .properties)
            for i in runs.indices { add(runs[i], .properties) }
            let added = UnsafeMutableBufferPointer(rebasing: room[..<count])
            sort(added)
            var previousEnd = Int.min
            for c in added {
                if c.start < previousEnd { return body(nil) }
                previousEnd = c.end
            }
            return body(added)
        }
    }

    /// Puts `cuts` in line order (insertion sort: a line has few), in place: one access to
    /// the array for all of a line's cuts.
    static func sort(_ cuts: UnsafeMutableBufferPointer<Cut>) {
        guard cuts.count > 1 else { return }
        for i in 1..<cuts.count {
            var j = i
            while j > 0 && cuts[j - 1].start > cuts[j].start {
                cuts.swapAt(j - 1, j)
                j -= 1
            }
        }
    }
}
