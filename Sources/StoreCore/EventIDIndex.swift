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

    private var byHash: [Int64: Entry] = [:]
    /// Ids whose hash an earlier id of the index has (almost never any).
    private var sharing: [[UInt8]: Entry] = [:]

    package init() {}

    package var isEmpty: Bool { byHash.isEmpty }

    /// Empties the index, keeping room for `count` ids.
    package mutating func removeAll(keepingRoomFor count: Int) {
        byHash.removeAll(keepingCapacity: true)
        byHash.reserveCapacity(count)
        sharing.removeAll()
    }

    /// The entry of `id` (its bytes compared in `buffer`), or nil; an empty index answers
    /// without hashing.
    package func find(_ id: UnsafeBufferPointer<UInt8>, hash: Int64, in buffer: UnsafeBufferPointer<UInt8>) -> Entry? {
        guard !byHash.isEmpty, let first = byHash[hash] else { return nil }
        if UnsafeBufferPointer(rebasing: buffer[first.id]).elementsEqual(id) { return first }
        return sharing.isEmpty ? nil : sharing[Array(id)]
    }

    /// The entry of `id` when the index has it; otherwise nil, after adding `entry` for it.
    /// One hash lookup for a new id.
    package mutating func findOrAdd(_ id: UnsafeBufferPointer<UInt8>, hash: Int64, entry: Entry, in buffer: UnsafeBufferPointer<UInt8>) -> Entry? {
        var added = false
        let first = Self.read(&byHash[hash, default: { added = true; return entry }()])
        if added { return nil }
        if UnsafeBufferPointer(rebasing: buffer[first.id]).elementsEqual(id) { return first }
        let key = Array(id)
        if let shared = sharing[key] { return shared }
        sharing[key] = entry
        return nil
    }

    /// A slot's value, read through `inout` so that the default subscript stores its default.
    private static func read(_ slot: inout Entry) -> Entry { slot }
}
