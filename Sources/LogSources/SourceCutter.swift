#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FunnelModel

/// Writes a vendor line's native line straight from the line's bytes in one scan: values are
/// copied as written (strings with their escapes, objects with their spacing), so it decodes
/// to the event `SourceMapping.map` gives. A line off that common path (an escaped or
/// repeated key where values are read, a value of the wrong kind, anything rejected) goes
/// through `SourceMapping.map`, which names any fault. One per thread: it keeps its buffers.
public struct SourceCutter: Sendable {
    public let mapping: SourceMapping
    /// The native line of the last line mapped (a copy: `withLine` reads it in place).
    public var line: [UInt8] { Array(buffer[..<lineCount]) }
    /// Where the native line's values are, when the scan wrote it and no string of the
    /// envelope holds an escape: what a decoder of `line` would find, without decoding it.
    public internal(set) var fields: NativeFields?
    /// Where the same values are in the vendor's line, set with `fields`.
    public internal(set) var vendorFields: VendorFields?
    /// With `vendorFields`, the rest of the vendor's line that no field reads as a value a
    /// line's shape could hold: runs of members no field reads (a properties object's own
    /// ones among them), and the values of later choices of the id, user and time fields.
    /// Byte ranges in the line, in no order.
    public internal(set) var otherValues: [Range<Int>] = []
    /// The native line's bytes are its first `lineCount`; its count is the room a line can
    /// be written into, grown as a longer line needs.
    var buffer: [UInt8]
    var lineCount = 0
    /// A time the native line writes otherwise than the vendor did (with a `Z`, or from a
    /// Unix number).
    var timeBytes: [UInt8] = []
    /// The date of the time read last: a vendor's lines are mostly of a few days.
    var lastDate = Timestamp.LastDate()

    /// Byte ranges in `line`: strings between their quotes, objects whole.
    public struct NativeFields: Sendable, Hashable {
        public var eventID: Range<Int>
        public var name: Range<Int>
        public var userID: Range<Int>
        public var flow: Range<Int>
        public var step: Range<Int>?
        public var timeText: Range<Int>
        public var time: Timestamp
        public var properties: Range<Int>?
        public var context: Range<Int>?
    }

    /// Byte ranges in the vendor's line (strings between their quotes, other values whole):
    /// the values its native line copies as written (event id, user, flow, step, a name
    /// passed through; nil: not in the line, or another name), and the time as the vendor
    /// wrote it.
    public struct VendorFields: Sendable, Hashable {
        public var eventID: Range<Int>
        public var name: Range<Int>?
        public var userID: Range<Int>
        public var flow: Range<Int>?
        public var step: Range<Int>?
        public var time: Range<Int>
    }

    let cut: SourceCut
    let plan: Plan
    /// The value at each slot on the line read last.
    var values: [Value]
    /// The members of each member slot's object on the line read last.
    var members: [[Member]]

    /// Where a slot's value is in the line: a string's content (between its quotes), any
    /// other value whole. `start < 0`: absent.
    struct Value: Sendable {
        var start = -1
        var end = -1
        var kind: UInt8 = 0
        var escaped = false
        var present: Bool { start >= 0 && kind != 0x6E }
        var isString: Bool { kind == 0x22 }
    }

    /// One member of an object whose members are kept, with what the native line does with it.
    struct Member: Sendable {
        var key: Range<Int>
        var value: Range<Int>
        /// A key a properties object leaves out (`Plan.consumed`).
        var consumed: Bool
        /// The key is a flag (its list `Plan.holdsFlags(list:)`; nil: bytes cannot tell).
        var flag: Bool?
    }

    public init(_ mapping: SourceMapping) {
        self.mapping = mapping
        var cut = SourceCut(mapping.definition)
        plan = Plan(mapping.definition, cut: cut, defaultFlow: mapping.defaultFlow)
        cut.markConsumed(plan.consumed)
        self.cut = cut
        values = Array(repeating: Value(), count: cut.paths.count)
        members = Array(repeating: [], count: cut.memberSlots.count)
        buffer = Array(repeating: 0, count: Self.initialRoom)
        timeBytes.reserveCapacity(40)
    }

    /// The room a cutter's native line starts with.
    private static let initialRoom = 1024

    /// Calls `body` with the native line of the last line mapped, in place.
    public func withLine<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[..<lineCount])) }
    }

    /// Maps one vendor line (without its newline); on success its native line is `line`.
    public mutating func map(_ b: UnsafeBufferPointer<UInt8>) -> SourceRejection? {
        fields = nil
        vendorFields = nil
        if cutLine(b) { return nil }
        fields = nil
        vendorFields = nil
        switch mapping.map(b) {
        case .failure(let r):
            return r
        case .success(let mapped):
            setLine(mapped.nativeLine)
            return nil
        }
    }

    /// Maps one vendor line, as `map`, and gives its native line (a copy) or why it is
    /// rejected, in one access (`SourceCutters` calls it on a cutter in place).
    mutating func nativeLine(_ b: UnsafeBufferPointer<UInt8>) -> Result<[UInt8], SourceRejection> {
        if let r = map(b) { return .failure(r) }
        return .success(line)
    }

    /// The one scan: true when the line's native line is written to `line`; false when the
    /// line is off the common path.
    mutating func cutLine(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard UTF8Check.firstInvalid(b) == nil, scan(b) else { return false }
        return write(b)
    }

    // MARK: the scan

    private mutating func scan(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for s in values.indices { values[s].start = -1 }
        for m in members.indices { members[m].removeAll(keepingCapacity: true) }
        otherValues.removeAll(keepingCapacity: true)
        var sc = JSONScanner(b)
        do throws(JSONSyntaxError) {
            sc.skipWhitespace()
            guard sc.peek == 0x7B, try object(0, &sc) else { return false }
            sc.skipWhitespace()
            return sc.i == b.count
        } catch {
            return false
        }
    }

    /// Reads the object at the cursor as `node`: wanted values to their slots, members to
    /// the node's list, runs of members no field reads to `otherValues`. False when a key is
    /// escaped or a wanted key repeats.
    private mutating func object(_ node: Int, _ sc: inout JSONScanner) throws(JSONSyntaxError) -> Bool {
        // Read in place: a copy of the node would retain its arrays for every object.
        let wide = cut.nodes[node].wide, list = cut.nodes[node].members
        let flags = plan.holdsFlags(list: list)
        sc.depth += 1
        sc.i += 1
        sc.skipWhitespace()
        if sc.peek == 0x7D { sc.i += 1; sc.depth -= 1; return true }
        var seen: UInt64 = 0
        // The run of unread members going on (its first key's quote, its last value's end).
        var run: Range<Int>?
        while true {
            sc.skipWhitespace()
            let key = try sc.scanString(decodeInto: nil)
            if key.escaped { return false }
            sc.skipWhitespace()
            try sc.expect(0x3A, .colon)
            sc.skipWhitespace()
            let start = sc.i
            let keyRange = key.start..<key.end
            let k = cut.find(keyRange, node: node, in: sc.b)
            // Whether the key is a flag: told here once for the run, the flags and the properties.
            let flag: Bool? = flags ? Self.hasPrefix(plan.flagPrefix, wide: plan.flagPrefixWide, keyRange, sc.b) : false
            if k >= 0 {
                guard k < 64, seen & (1 << k) == 0 else { return false }
                seen |= 1 << k
                let child = cut.nodes[node].children[k], slot = cut.nodes[node].slots[k]
                let c = sc.peek ?? 0
                if c == 0x22 {
                    let s = try sc.scanString(decodeInto: nil)
                    if slot >= 0 { values[slot] = Value(start: s.start, end: s.end, kind: c, escaped: s.escaped) }
                } else {
                    if child >= 0, c == 0x7B {
                        guard try object(child, &sc) else { return false }
                    } else {
                        try sc.skipValue()
                    }
                    if slot >= 0 { values[slot] = Value(start: start, end: sc.i, kind: c) }
                }
                if let r = run { otherValues.append(r); run = nil }
            } else {
                if wide, Self.isWide(key.start..<key.end, sc.b) { return false }
                try sc.skipValue()
                // A flag (or a key bytes cannot tell, whose line the mapping reads) stays.
                if flag != false {
                    if let r = run { otherValues.append(r); run = nil }
                } else {
                    run = (run?.lowerBound ?? (key.start - 1))..<sc.i
                }
            }
            if list >= 0 {
                members[list].append(Member(key: keyRange, value: start..<sc.i,
                                            consumed: cut.isConsumed(keyRange, at: k, node: node, in: sc.b), flag: flag))
            }
            sc.skipWhitespace()
            if sc.peek == 0x2C { sc.i += 1; continue }
            try sc.expect(0x7D, .commaOrObjectEnd)
            if let r = run { otherValues.append(r) }
            sc.depth -= 1
            return true
        }
    }

    /// Whether the bytes at `r` are `key`'s (compared in place: no iterator, no bounds checks).
    static func equal(_ key: [UInt8], _ r: Range<Int>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard key.count == r.count else { return false }
        return key.withUnsafeBufferPointer { k in
            guard let kb = k.baseAddress, let bb = b.baseAddress else { return k.isEmpty }
            return memcmp(kb, bb + r.lowerBound, k.count) == 0
        }
    }

    /// Whether the key at `r` starts with `prefix` (`wide`: it holds a byte past ASCII), as
    /// `String.hasPrefix` says; nil when bytes cannot tell (a byte past ASCII in the prefix,
    /// or right after it).
    private static func hasPrefix(_ prefix: [UInt8], wide: Bool, _ r: Range<Int>, _ b: UnsafeBufferPointer<UInt8>) -> Bool? {
        if wide { return nil }
        guard r.count >= prefix.count, equal(prefix, r.lowerBound..<(r.lowerBound + prefix.count), b) else { return false }
        if r.count > prefix.count, b[r.lowerBound + prefix.count] >= 0x80 { return nil }
        return true
    }

    static func isWide(_ r: Range<Int>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        b[r].contains { $0 >= 0x80 }
    }

    static func isEmptyObject(_ v: Value, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        b[(v.start + 1)..<(v.end - 1)].allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    }
}
