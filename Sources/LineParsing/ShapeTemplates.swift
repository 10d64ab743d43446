#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FunnelModel
import LogFiles

/// The shapes (`LineShape`) of an input's accepted lines, as templates a new line is matched
/// against before it is parsed in full. A line that equals a known shape outside its cut
/// values, whose cut values are valid UTF-8, whose cut strings hold no escape and whose
/// properties are one valid JSON object, is valid and has that shape's envelope at the cuts'
/// places: the shape came from a line `EventDecoder` accepted, so its literal bytes need only
/// be compared (`memcmp`), not parsed nor checked for UTF-8.
/// A line that matches no template goes to `EventDecoder`, which gives every rejection its
/// reason and offset; a template never rejects.
///
/// Templates share their leading literals in a trie: a node is a place after a cut, its edges
/// the literals up to a next cut (with that cut's field), its tails the literals after a last
/// cut, looked up whole.
package struct ShapeTemplates {
    /// A literal up to a cut (bytes in `arena`), the cut's field, the node after the cut, and
    /// the next edge of the same node (-1: the last).
    struct Edge {
        var literal: Range<Int>
        var field: LineShape.Field
        var node: Int
        var next: Int
    }

    /// A tail's template at one node, and the same tail's entry at another node (-1: none).
    struct TailEnd {
        var node: Int
        var template: Int
        var next: Int
    }

    /// What a matched line's envelope takes from its template besides the cuts.
    struct Template {
        var shape: Int32
        var hasStep: Bool
        /// The context object: in which literal (the edges' in order, then the tail), at
        /// which offset in it, and its length.
        var context: (segment: Int, offset: Int, count: Int)?
    }

    /// A matched line: its envelope (refs into the line) and its shape's number.
    package struct Match {
        package var envelope: Envelope
        package var shape: Int32
    }

    private var arena: [UInt8] = []
    /// Each node's first edge (-1: none); node 0 is the line's start.
    private var firstEdge = [-1]
    private var edges: [Edge] = []
    /// Every tail of every node, and by tail id its first `TailEnd`.
    private var tails = ByteInterner()
    private var tailFirst: [Int] = []
    private var tailEnds: [TailEnd] = []
    private var templates: [Template] = []
    /// Shapes offered to `learn` so far, by number: each is learnt once.
    private var learnt: [Bool] = []
    /// Literal bytes held (edges and tails).
    private var literalBytes = 0
    /// The date of the last matched line's time: the next of the same day skips reading it.
    private var lastDate = Timestamp.LastDate()

    package init() {}

    /// How many shapes were learnt as templates.
    package var count: Int { templates.count }

    /// The envelope and shape of `b` (one line) when it matches a learnt shape, else nil.
    package mutating func match(_ b: UnsafeBufferPointer<UInt8>) -> Match? {
        guard !templates.isEmpty, b.baseAddress != nil else { return nil }
        // Where each literal starts in the line, and each cut value's bounds by field code, in
        // scratch memory written a slot at a time (a SIMD vector's lane written by a variable
        // index is stored and loaded back whole, a stall for every cut).
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 3 * ShapeTemplates.slots) { scratch in
            scratch.initialize(repeating: -1)
            return match(b, slots: scratch)
        }
    }

    /// Slots for each literal's start and each field's value bounds (`LineShape.Field` codes
    /// are below it; a template has fewer cuts).
    private static let slots = 8

    /// `match(_:)` with its slots: literal starts, then value starts, then value ends.
    private mutating func match(_ b: UnsafeBufferPointer<UInt8>, slots: UnsafeMutableBufferPointer<Int32>) -> Match? {
        // Offsets in the line fit the slots' Int32 (a line is far shorter), checked once here.
        guard let base = b.baseAddress, let starts = slots.baseAddress, b.count < Int(Int32.max) else { return nil }
        let valueStart = starts + Self.slots, valueEnd = valueStart + Self.slots
        var node = 0
        var pos = 0
        var segment = 0
        let n = b.count
        let matched: Bool = arena.withUnsafeBufferPointer { a in
            edges.withUnsafeBufferPointer { edges in
                guard let arenaBase = a.baseAddress else { return false }
                var e = firstEdge[0]
                while e >= 0 {
                    let edge = edges[e]
                    let length = edge.literal.count
                    guard pos + length <= n, Self.same(base + pos, arenaBase + edge.literal.lowerBound, length) else {
                        e = edge.next
                        continue
                    }
                    guard segment < Self.slots - 1 else { return false }
                    starts[segment] = Int32(truncatingIfNeeded: pos)
                    segment += 1
                    pos += length
                    guard let end = ShapeTemplates.valueEnd(edge.field, in: b, at: pos) else { return false }
                    valueStart[Int(edge.field.rawValue)] = Int32(truncatingIfNeeded: pos)
                    valueEnd[Int(edge.field.rawValue)] = Int32(truncatingIfNeeded: end)
                    pos = end
                    node = edge.node
                    e = firstEdge[node]
                }
                return true
            }
        }
        guard matched, let tail = tails.lookup(UnsafeBufferPointer(rebasing: b[pos..<n])) else { return nil }
        var end = tailFirst[tail]
        while end >= 0, tailEnds[end].node != node { end = tailEnds[end].next }
        guard end >= 0 else { return nil }
        starts[segment] = Int32(truncatingIfNeeded: pos)
        let template = templates[tailEnds[end].template]
        func ref(_ f: LineShape.Field) -> StringRef? {
            let k = Int(f.rawValue)
            return valueStart[k] < 0 ? nil : StringRef(start: valueStart[k], end: valueEnd[k], inScratch: false)
        }
        guard let eventID = ref(.eventID), eventID.count > 0, let name = ref(.name), let userID = ref(.user),
              userID.count > 0, let ts = ref(.ts), ts.count > 10, let flow = ref(.flow),
              let time = Timestamp.parse(bytes: ts.bytes(in: b), lastDate: &lastDate)
        else { return nil }
        let p = Int(LineShape.Field.properties.rawValue)
        let properties = valueStart[p] < 0 ? nil : Int(valueStart[p])..<Int(valueEnd[p])
        let context = template.context.map { c in
            let start = Int(starts[c.segment]) + c.offset
            return start..<start + c.count
        }
        let envelope = Envelope(eventID: eventID, name: name, userID: userID, flow: flow,
                                step: template.hasStep ? ref(.step) : nil, time: time, timeText: ts,
                                properties: properties, context: context)
        return Match(envelope: envelope, shape: template.shape)
    }

    /// Whether the `count` bytes at `a` and `b` are the same: a literal of 8 to 16 bytes (most
    /// are) compared as two words that overlap, a literal that differs from the line mostly
    /// in its first word, without a call.
    @inline(__always)
    private static func same(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        guard count >= 8 else { return memcmp(a, b, count) == 0 }
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        guard ra.loadUnaligned(as: UInt64.self) == rb.loadUnaligned(as: UInt64.self) else { return false }
        if count <= 16 {
            return ra.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                == rb.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        }
        return memcmp(a + 8, b + 8, count - 8) == 0
    }

    /// The end of the cut value of `field` at `start` (a string's content after its opening
    /// quote, or the properties object), or nil when it is not one the template can take:
    /// an escaped string (decoded apart by the full parser), invalid JSON or invalid UTF-8.
    /// The line's UTF-8 is checked here, in its cut values only: its literals and tail are
    /// bytes of lines `EventDecoder` accepted, and each piece starts and ends at an ASCII byte.
    @inline(__always)
    private static func valueEnd(_ field: LineShape.Field, in b: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        if field == .properties {
            // Most properties are a flat object, read without `skipValue`'s recursion; any
            // other text is left to `skipValue`.
            var scanner = JSONScanner(b, at: start)
            if let ascii = scanner.skipFlatObject() {
                guard ascii || UTF8Check.firstInvalid(UnsafeBufferPointer(rebasing: b[start..<scanner.i])) == nil
                else { return nil }
                return scanner.i
            }
            guard start < b.count, b[start] == 0x7B else { return nil }
            scanner = JSONScanner(b, at: start)
            do { try scanner.skipValue() } catch { return nil }
            guard UTF8Check.firstInvalid(UnsafeBufferPointer(rebasing: b[start..<scanner.i])) == nil else { return nil }
            return scanner.i
        }
        // The literal before a string cut ends with its opening quote.
        guard let string = JSONScanner.plainStringEnd(b, from: start) else { return nil }
        guard string.ascii || UTF8Check.firstInvalid(UnsafeBufferPointer(rebasing: b[start..<string.end])) == nil
        else { return nil }
        return string.end
    }

    /// Learns the shape of a line `EventDecoder` accepted: `cuts` are its shape's cuts and
    /// `env` its envelope, both with offsets into `b`, where the line is `line`. A shape whose
    /// envelope strings are not all cut (an escaped one is decoded apart) is not learnt.
    package mutating func learn(shape: Int32, cuts: [LineShape.Cut], env: Envelope, line: Range<Int>,
                                in b: UnsafeBufferPointer<UInt8>) {
        let s = Int(shape)
        guard s >= 0 else { return }
        if learnt.count <= s { learnt.append(contentsOf: repeatElement(false, count: s + 1 - learnt.count)) }
        guard !learnt[s], templates.count < Tuning.shapeTemplates,
              literalBytes + line.count <= Tuning.shapeTemplateBytes else { return }
        learnt[s] = true
        var needed: UInt8 = 0
        for f: LineShape.Field in [.eventID, .name, .user, .ts, .flow] { needed |= 1 << f.rawValue }
        if env.step != nil { needed |= 1 << LineShape.Field.step.rawValue }
        if env.properties != nil { needed |= 1 << LineShape.Field.properties.rawValue }
        var fields: UInt8 = 0
        for c in cuts { fields |= 1 << c.field.rawValue }
        guard fields == needed, cuts.count < 8 else { return }
        // Literals: before each cut, then the tail; the context lies whole in one of them.
        var literals = cuts.indices.map { k in (k == 0 ? line.lowerBound : cuts[k - 1].end)..<cuts[k].start }
        literals.append((cuts.last?.end ?? line.lowerBound)..<line.upperBound)
        var context: (segment: Int, offset: Int, count: Int)?
        if let c = env.context {
            guard let k = literals.firstIndex(where: { $0.lowerBound <= c.lowerBound && c.upperBound <= $0.upperBound })
            else { return }
            context = (k, c.lowerBound - literals[k].lowerBound, c.count)
        }
        var node = 0
        for (k, cut) in cuts.enumerated() {
            guard let next = edge(from: node, literal: UnsafeBufferPointer(rebasing: b[literals[k]]), field: cut.field)
            else { return }
            node = next
        }
        let tailBytes = UnsafeBufferPointer(rebasing: b[literals[cuts.count]])
        literalBytes += tailBytes.count
        let tail = tails.intern(tailBytes)
        if tail.isNew { tailFirst.append(-1) }
        var end = tailFirst[tail.id]
        while end >= 0 {
            if tailEnds[end].node == node { return }
            end = tailEnds[end].next
        }
        tailEnds.append(TailEnd(node: node, template: templates.count, next: tailFirst[tail.id]))
        tailFirst[tail.id] = tailEnds.count - 1
        templates.append(Template(shape: shape, hasStep: env.step != nil, context: context))
    }

    /// The node after `literal` and a cut of `field` from `node`, added when new; nil when
    /// `node` has as many edges as it may.
    private mutating func edge(from node: Int, literal: UnsafeBufferPointer<UInt8>, field: LineShape.Field) -> Int? {
        var e = firstEdge[node]
        var last = -1
        var branches = 0
        while e >= 0 {
            let edge = edges[e]
            if edge.field == field, arena[edge.literal].elementsEqual(literal) { return edge.node }
            last = e
            e = edge.next
            branches += 1
        }
        guard branches < Tuning.shapeTemplateBranches else { return nil }
        literalBytes += literal.count
        let start = arena.count
        arena.append(contentsOf: literal)
        firstEdge.append(-1)
        let added = firstEdge.count - 1
        // Appended last among the node's edges: the first learnt is tried first.
        edges.append(Edge(literal: start..<arena.count, field: field, node: added, next: -1))
        if last < 0 {
            firstEdge[node] = edges.count - 1
        } else {
            edges[last].next = edges.count - 1
        }
        return added
    }
}
