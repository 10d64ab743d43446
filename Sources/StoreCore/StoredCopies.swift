import LineParsing

/// The stored events a store found for an `EventIDQuery`: each with its id and its line as
/// stored (byte for byte as it arrived), the first arrival when two have one id.
package struct StoredCopies {
    private var bytes: [UInt8] = []
    private var index = EventIDIndex<Copy>()

    /// Where a copy's id and line are in `bytes`.
    private struct Copy {
        var id: Range<Int>
        var line: Range<Int>
    }

    package init() {}

    package var isEmpty: Bool { index.isEmpty }

    /// Adds a stored event's id and line, unless an event with that id was added before.
    package mutating func add(id: UnsafeBufferPointer<UInt8>, line: UnsafeBufferPointer<UInt8>) {
        let idStart = bytes.count
        bytes.append(contentsOf: id)
        let lineStart = bytes.count
        bytes.append(contentsOf: line)
        let copy = Copy(id: idStart..<lineStart, line: lineStart..<bytes.count)
        let added = bytes.withUnsafeBufferPointer { b in
            index.findOrAdd(id, hash: EventIdentity.idHash(id), line: copy) { b[$0.id].elementsEqual(id) } == nil
        }
        if !added { bytes.removeSubrange(idStart...) }
    }

    /// Whether `line` is the same event as the stored one with id `id` (`EventIdentity`):
    /// nil when no stored event has the id.
    package func sameEvent(id: UnsafeBufferPointer<UInt8>, hash: Int64, as line: UnsafeBufferPointer<UInt8>) -> Bool? {
        bytes.withUnsafeBufferPointer { b in
            index.find(id, hash: hash) { b[$0.id].elementsEqual(id) }
                .map { EventIdentity.sameEvent(UnsafeBufferPointer(rebasing: b[$0.line]), line) }
        }
    }
}
