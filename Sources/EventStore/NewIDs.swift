import FunnelModel
import LogFiles
import GRDB
import Foundation

/// The ids an input added so far, for finding a copy later in the same input. They are kept
/// in buckets by the top bits of their hash, in the order of signed hashes; each bucket is a
/// chain of small blocks in one slab: an append writes at the end of its bucket's last block
/// (the buckets' ends stay in cache, where a hash table's slot would be a cache miss a line),
/// a lookup reads one bucket's blocks, and the pairs leave in (hash, seq) order with each
/// bucket sorted on its own, 16 bytes a pair in memory.
struct NewIDs {
    /// The slab and the buckets' chains, copied before a change when shared.
    private final class Storage {
        let bucketCount: Int
        /// Blocks of `blockPairs` pairs; the block before each in its bucket (-1: none).
        var slab: UnsafeMutablePointer<EventIDs.Entry>
        var previous: UnsafeMutablePointer<Int32>
        var blockRoom: Int
        var blocks = 0
        /// Each bucket's last block (-1: none) and the pairs in it.
        let last: UnsafeMutablePointer<Int32>
        let filled: UnsafeMutablePointer<Int32>

        init(bucketCount: Int, blockRoom: Int) {
            self.bucketCount = bucketCount
            self.blockRoom = max(1, blockRoom)
            slab = .allocate(capacity: self.blockRoom * NewIDs.blockPairs)
            previous = .allocate(capacity: self.blockRoom)
            last = .allocate(capacity: bucketCount)
            last.initialize(repeating: -1, count: bucketCount)
            filled = .allocate(capacity: bucketCount)
            filled.initialize(repeating: 0, count: bucketCount)
        }

        deinit {
            slab.deallocate()
            previous.deallocate()
            last.deallocate()
            filled.deallocate()
        }

        func copy() -> Storage {
            let c = Storage(bucketCount: bucketCount, blockRoom: blockRoom)
            c.slab.update(from: slab, count: blocks * NewIDs.blockPairs)
            c.previous.update(from: previous, count: blocks)
            c.blocks = blocks
            c.last.update(from: last, count: bucketCount)
            c.filled.update(from: filled, count: bucketCount)
            return c
        }

        /// A new block at the end of bucket `b`'s chain; the slab doubles when full.
        func newBlock(for b: Int) {
            if blocks == blockRoom {
                let room = blockRoom * 2
                let wider = UnsafeMutablePointer<EventIDs.Entry>.allocate(capacity: room * NewIDs.blockPairs)
                wider.moveInitialize(from: slab, count: blocks * NewIDs.blockPairs)
                slab.deallocate()
                slab = wider
                let chains = UnsafeMutablePointer<Int32>.allocate(capacity: room)
                chains.moveInitialize(from: previous, count: blocks)
                previous.deallocate()
                previous = chains
                blockRoom = room
            }
            previous[blocks] = last[b]
            last[b] = Int32(blocks)
            filled[b] = 0
            blocks += 1
        }

        /// Calls `body` with each pair of bucket `b`, last block first.
        func forEach(inBucket b: Int, _ body: (EventIDs.Entry) throws -> Void) rethrows {
            var block = Int(last[b]), n = Int(filled[b])
            while block >= 0 {
                let start = slab + block * NewIDs.blockPairs
                for i in 0..<n { try body(start[i]) }
                block = Int(previous[block])
                n = NewIDs.blockPairs
            }
        }
    }

    /// Pairs a block holds (four cache lines).
    private static let blockPairs = 16
    /// How far a hash is shifted to its bucket (64: one bucket).
    private let shift: UInt64
    private var storage: Storage
    /// A bucket's pairs, gathered to be sorted, and room to sort them into.
    private var scratch: [EventIDs.Entry] = []
    private var sorted: [EventIDs.Entry] = []
    /// Pairs added.
    private(set) var count = 0

    /// `bucketBits`: the top bits of a hash that pick its bucket (2^bits buckets, at most 16
    /// bits: the slab starts with a block a bucket).
    init(bucketBits: Int = Tuning.newIDsBucketBits) {
        let bits = min(max(0, bucketBits), 16)
        shift = UInt64(64 - bits)
        storage = Storage(bucketCount: 1 << bits, blockRoom: 1 << bits)
    }

    /// The bucket of `hash`: its top bits with the sign bit flipped, so that buckets go from
    /// the most negative hash to the largest.
    private func bucket(of hash: Int64) -> Int {
        Int((UInt64(bitPattern: hash) ^ (1 << 63)) >> shift)
    }

    mutating func append(_ e: EventIDs.Entry) {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        let s = storage, b = bucket(of: e.hash)
        if s.last[b] < 0 || Int(s.filled[b]) == NewIDs.blockPairs { s.newBlock(for: b) }
        s.slab[Int(s.last[b]) * NewIDs.blockPairs + Int(s.filled[b])] = e
        s.filled[b] += 1
        count += 1
    }

    /// The seqs added under `hash`, in arrival order.
    func seqs(of hash: Int64) -> [Int64] {
        var out: [Int64] = []
        storage.forEach(inBucket: bucket(of: hash)) { e in
            if e.hash == hash { out.append(e.seq) }
        }
        return out.sorted()
    }

    /// Puts one bucket's pairs (`scratch`) in (hash, seq) order: by the next bits of the hash
    /// after the bucket's (a counting sort into about half as many groups as pairs), then each
    /// group by insertion. A bucket's hashes are random below its bits, so a group holds a
    /// pair or two, where a comparison sort of the whole bucket compared each pair many times.
    private mutating func sortScratch() {
        let n = scratch.count
        guard n > 8 else {
            scratch.withUnsafeMutableBufferPointer { NewIDs.insertionSort($0) }
            return
        }
        // About two pairs a group; a bucket too large for groups that small (one bucket for
        // all) is sorted whole.
        let bits = Int.bitWidth - (n / 2).leadingZeroBitCount
        guard bits <= 8 else {
            scratch.sort()
            return
        }
        let groups = 1 << bits
        let low = shift >= UInt64(bits) ? shift - UInt64(bits) : 0
        let mask = UInt64(groups - 1)
        @inline(__always) func group(_ e: EventIDs.Entry) -> Int {
            Int(truncatingIfNeeded: ((UInt64(bitPattern: e.hash) ^ (1 << 63)) >> low) & mask)
        }
        sorted.removeAll(keepingCapacity: true)
        sorted.append(contentsOf: scratch)
        // Each group's start, then where its next pair goes.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * (groups + 1)) { room in
            room.initialize(repeating: 0)
            let starts = UnsafeMutableBufferPointer(rebasing: room[0...groups])
            let at = UnsafeMutableBufferPointer(rebasing: room[(groups + 1)...])
            for e in scratch { starts[group(e) + 1] += 1 }
            for g in 0..<groups { starts[g + 1] += starts[g] }
            for g in 0...groups { at[g] = starts[g] }
            sorted.withUnsafeMutableBufferPointer { out in
                for e in scratch {
                    let g = group(e)
                    out[at[g]] = e
                    at[g] += 1
                }
                for g in 0..<groups where starts[g + 1] - starts[g] > 1 {
                    NewIDs.insertionSort(UnsafeMutableBufferPointer(rebasing: out[starts[g]..<starts[g + 1]]))
                }
            }
        }
        swap(&scratch, &sorted)
    }

    /// Sorts a few pairs in place by (hash, seq).
    private static func insertionSort(_ pairs: UnsafeMutableBufferPointer<EventIDs.Entry>) {
        guard pairs.count > 1 else { return }
        for i in 1..<pairs.count {
            let e = pairs[i]
            var j = i
            while j > 0, e < pairs[j - 1] {
                pairs[j] = pairs[j - 1]
                j -= 1
            }
            pairs[j] = e
        }
    }

    /// Hands every pair to `body` in (hash, seq) order, bucket after bucket, and leaves the
    /// set empty (with its slab, for the next pairs).
    mutating func drain(_ body: (EventIDs.Entry) throws -> Void) rethrows {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        let s = storage
        for b in 0..<s.bucketCount where s.last[b] >= 0 {
            scratch.removeAll(keepingCapacity: true)
            s.forEach(inBucket: b) { scratch.append($0) }
            sortScratch()
            for e in scratch { try body(e) }
        }
        s.last.update(repeating: -1, count: s.bucketCount)
        s.filled.update(repeating: 0, count: s.bucketCount)
        s.blocks = 0
        count = 0
    }
}
