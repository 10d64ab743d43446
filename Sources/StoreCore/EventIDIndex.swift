/// Event ids kept in a byte buffer, found by the parser's 64-bit hash of each id
/// (`LineKeys.idHash`) instead of by hashing the id again; the ids' bytes decide, so two ids
/// with one hash are told apart. Each id comes with where its line is (`Line`).
package struct EventIDIndex<Line> {
    /// Where an id sits in the buffer the index is used with, and where its line is.
    package struct Entry {
        package var id: Range<Int>
        package var line: Line

        package init(id: Range<Int>, line: Line) {
            self.id = id
            self.line = line
        }
    }

    /// The first entry of each hash: open addressing over `slots` (an index into `entries`,
    /// -1: empty), probed from the hash itself (ids come hashed already: no second hash).
    private var slots: [Int32] = []
    private var hashes: [Int64] = []
    private var entries: [Entry] = []
    /// Ids whose hash an earlier id of the index has (almost never any).
    private var sharing: [[UInt8]: Entry] = [:]

    package init() {}

    package var isEmpty: Bool { entries.isEmpty }

    /// Empties the index, keeping room for `count` ids.
    package mutating func removeAll(keepingRoomFor count: Int) {
        entries.removeAll(keepingCapacity: true)
        hashes.removeAll(keepingCapacity: true)
        entries.reserveCapacity(count)
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

    /// The position in `entries` of the first entry of `hash`, or the empty slot where it goes.
    @inline(__always)
    private func probe(_ hash: Int64) -> (entry: Int?, slot: Int) {
        let mask = slots.count - 1
        var s = home(hash)
        while true {
            let k = Int(slots[s])
            if k < 0 { return (nil, s) }
            if hashes[k] == hash { return (k, s) }
            s = (s + 1) & mask
        }
    }

    /// The entry of `id` (its bytes compared in `buffer`), or nil; an empty index answers
    /// without probing.
    package func find(_ id: UnsafeBufferPointer<UInt8>, hash: Int64, in buffer: UnsafeBufferPointer<UInt8>) -> Entry? {
        guard !entries.isEmpty, let k = probe(hash).entry else { return nil }
        let first = entries[k]
        if UnsafeBufferPointer(rebasing: buffer[first.id]).elementsEqual(id) { return first }
        return sharing.isEmpty ? nil : sharing[Array(id)]
    }

    /// The entry of `id` when the index has it; otherwise nil, after adding `entry` for it.
    /// One probe for a new id.
    package mutating func findOrAdd(_ id: UnsafeBufferPointer<UInt8>, hash: Int64, entry: Entry, in buffer: UnsafeBufferPointer<UInt8>) -> Entry? {
        if 2 * (entries.count + 1) > slots.count { grow() }
        let (k, slot) = probe(hash)
        guard let k else {
            slots[slot] = Int32(entries.count)
            hashes.append(hash)
            entries.append(entry)
            return nil
        }
        let first = entries[k]
        if UnsafeBufferPointer(rebasing: buffer[first.id]).elementsEqual(id) { return first }
        let key = Array(id)
        if let shared = sharing[key] { return shared }
        sharing[key] = entry
        return nil
    }

    /// Twice the slots, every entry placed again.
    private mutating func grow() {
        slots = [Int32](repeating: -1, count: max(16, slots.count * 2))
        for k in hashes.indices {
            let s = probe(hashes[k]).slot
            slots[s] = Int32(k)
        }
    }
}
