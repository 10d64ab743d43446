/// The event ids of the lines the ingest driver is deciding, in line order, as a store looks
/// them up (`InputWriting.storedCopies`): each id's parser hash (`LineKeys.idHash`) and its
/// bytes where they are, in the parsed batches' buffers (held, not copied).
package struct EventIDQuery {
    /// The buffers the ids are in: a parsed batch's bytes each.
    private var buffers: [[UInt8]] = []
    /// Each id's buffer (an index into `buffers`) and bounds there.
    private var places: [(buffer: Int32, start: Int32, end: Int32)] = []
    package private(set) var hashes: [Int64] = []
    /// The ids' bytes, all together.
    package private(set) var byteCount = 0

    package init() {}

    package var count: Int { hashes.count }
    package var isEmpty: Bool { hashes.isEmpty }

    /// The ids appended next are in `bytes` (a parsed batch's buffer).
    package mutating func startBuffer(_ bytes: [UInt8]) {
        buffers.append(bytes)
    }

    /// Appends the id at `range` of the buffer started last, with its hash.
    package mutating func append(_ range: Range<Int>, hash: Int64) {
        places.append((Int32(buffers.count - 1), Int32(range.lowerBound), Int32(range.upperBound)))
        hashes.append(hash)
        byteCount += range.count
    }

    /// Empties the query (letting its buffers go), keeping its room.
    package mutating func removeAll() {
        buffers.removeAll(keepingCapacity: true)
        places.removeAll(keepingCapacity: true)
        hashes.removeAll(keepingCapacity: true)
        byteCount = 0
    }

    /// Calls `body` with each id's bytes and hash, in order.
    package func forEach(_ body: (_ id: UnsafeBufferPointer<UInt8>, _ hash: Int64) throws -> Void) rethrows {
        var k = 0
        for (i, buffer) in buffers.enumerated() {
            try buffer.withUnsafeBufferPointer { b in
                while k < places.count, Int(places[k].buffer) == i {
                    try body(UnsafeBufferPointer(rebasing: b[Int(places[k].start)..<Int(places[k].end)]), hashes[k])
                    k += 1
                }
            }
        }
    }
}
