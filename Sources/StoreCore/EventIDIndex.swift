/// Event ids found by the parser's 64-bit hash of each id (`LineKeys.idHash`) instead of by
/// hashing the id again; the ids' bytes decide (the caller compares them: `isID`), so two ids
/// with one hash are told apart. Each id comes with where its line is (`Line`).
package struct EventIDIndex<Line> {
    /// The first line of each hash: open addressing over `slots` (an index into `lines`,
    /// -1: empty), probed from the hash itself (ids come hashed already: no second hash).
    private var slots: [Int32] = []
    private var hashes: [Int64] = []
    private var lines: [Line] = []
    /// Ids whose hash an earlier id of the index has (almost never any).
    private var sharing: [[UInt8]: Line] = [:]

    package init() {}

    package var isEmpty: Bool { lines.isEmpty }

    /// Empties the index, keeping room for `count` ids.
    package mutating func removeAll(keepingRoomFor count: Int) {
        lines.removeAll(keepingCapacity: true)
        hashes.removeAll(keepingCapacity: true)
        lines.reserveCapacity(count)
        hashes.reserveCapacity(count)
        let size = Self.tableSize(for: count)
        if slots.count == size {
            slots.withUnsafeMutableBufferPointer { $0.update(repeating: -1) }
        } else {
            slots = [Int32](repeating: -1, count: size)
        }
        sharing.removeAll()
    }

    /// Slots for `count` ids: a power of two, at most half full.
    private static func tableSize(for count: Int) -> Int {
        var size = 16
        while size < 2 * count { size *= 2 }
        return size
    }

    /// The slot `hash` is probed from: its top bits after a multiply, which spreads hashes
    /// that differ only high up.
    @inline(__always)
    private func home(_ hash: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: hash) &* 0x9E37_79B9_7F4A_7C15) >> 32) & (slots.count - 1)
    }

    /// The position in `lines` of the first line of `hash`, or the empty slot where it goes.
    @inline(__always)
    private func probe(_ hash: Int64) -> (line: Int?, slot: Int) {
        let mask = slots.count - 1
        var s = home(hash)
        while true {
            let k = Int(slots[s])
            if k < 0 { return (nil, s) }
            if hashes[k] == hash { return (k, s) }
            s = (s + 1) & mask
        }
    }

    /// The line of `id`, or nil; `isID` tells whether a line's id is `id`. An empty index
    /// answers without probing.
    package func find(_ id: UnsafeBufferPointer<UInt8>, hash: Int64, isID: (Line) -> Bool) -> Line? {
        guard !lines.isEmpty, let k = probe(hash).line else { return nil }
        if isID(lines[k]) { return lines[k] }
        return sharing.isEmpty ? nil : sharing[Array(id)]
    }

    /// The line of `id` when the index has it; otherwise nil, after adding `line` for it.
    /// One probe for a new id. Inlined: every line of an input asks.
    @inline(__always)
    package mutating func findOrAdd(_ id: UnsafeBufferPointer<UInt8>, hash: Int64, line: Line,
                                    isID: (Line) -> Bool) -> Line? {
        if 2 * (lines.count + 1) > slots.count { grow() }
        let (k, slot) = probe(hash)
        guard let k else {
            slots[slot] = Int32(lines.count)
            hashes.append(hash)
            lines.append(line)
            return nil
        }
        if isID(lines[k]) { return lines[k] }
        let key = Array(id)
        if let shared = sharing[key] { return shared }
        sharing[key] = line
        return nil
    }

    /// Room for one more id (twice the slots), every line placed again.
    private mutating func grow() {
        slots = [Int32](repeating: -1, count: Self.tableSize(for: lines.count + 1))
        for k in hashes.indices {
            let s = probe(hashes[k]).slot
            slots[s] = Int32(k)
        }
    }
}
