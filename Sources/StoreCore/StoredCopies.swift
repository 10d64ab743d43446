import LineParsing

/// The stored events a store found for an `EventIDQuery`: each with its id and its line as
/// stored (byte for byte as it arrived), the first arrival when two have one id.
package struct StoredCopies {
    private var bytes: [UInt8] = []
    private var index = EventIDIndex<Range<Int>>()

    package init() {}

    package var isEmpty: Bool { index.isEmpty }

    /// Adds a stored event's id and line, unless an event with that id was added before.
    package mutating func add(id: UnsafeBufferPointer<UInt8>, line: UnsafeBufferPointer<UInt8>) {
        let idStart = bytes.count
        bytes.append(contentsOf: id)
        let lineStart = bytes.count
        bytes.append(contentsOf: line)
        let entry = EventIDIndex<Range<Int>>.Entry(id: idStart..<lineStart, line: lineStart..<bytes.count)
        let added = bytes.withUnsafeBufferPointer { b in
            index.findOrAdd(UnsafeBufferPointer(rebasing: b[entry.id]), hash: EventIdentity.idHash(id), entry: entry, in: b) == nil
        }
        if !added { bytes.removeSubrange(idStart...) }
    }

    /// Whether `line` is the same event as the stored one with id `id` (`EventIdentity`):
    /// nil when no stored event has the id.
    package func sameEvent(id: UnsafeBufferPointer<UInt8>, hash: Int64, as line: UnsafeBufferPointer<UInt8>) -> Bool? {
        bytes.withUnsafeBufferPointer { b in
            index.find(id, hash: hash, in: b).map { EventIdentity.sameEvent(UnsafeBufferPointer(rebasing: b[$0.line]), line) }
        }
    }
}
