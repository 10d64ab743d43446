/// The event ids of the lines the ingest driver is deciding, in line order, as a store looks
/// them up (`InputWriting.storedCopies`): each id's bytes and its parser hash
/// (`LineKeys.idHash`).
package struct EventIDQuery {
    /// The ids' bytes, one after another.
    package private(set) var bytes: [UInt8] = []
    package private(set) var ranges: [Range<Int>] = []
    package private(set) var hashes: [Int64] = []

    package init() {}

    package var count: Int { ranges.count }
    package var isEmpty: Bool { ranges.isEmpty }

    package mutating func append(_ id: UnsafeBufferPointer<UInt8>, hash: Int64) {
        let start = bytes.count
        bytes.append(contentsOf: id)
        ranges.append(start..<bytes.count)
        hashes.append(hash)
    }

    /// Empties the query, keeping its room.
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ranges.removeAll(keepingCapacity: true)
        hashes.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with each id's bytes and hash, in order.
    package func forEach(_ body: (_ id: UnsafeBufferPointer<UInt8>, _ hash: Int64) throws -> Void) rethrows {
        try bytes.withUnsafeBufferPointer { b in
            for (range, hash) in zip(ranges, hashes) { try body(UnsafeBufferPointer(rebasing: b[range]), hash) }
        }
    }
}
