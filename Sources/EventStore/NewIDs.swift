import FunnelModel
import LogFiles
import GRDB
import Foundation

/// The ids an input added so far, for finding a copy later in the same input. They are kept
/// in buckets by the top bits of their hash, in the order of signed hashes: an append goes to
/// the end of its bucket (the buckets' ends stay in cache, where a hash table's slot would be
/// a cache miss a line), a lookup scans one bucket, and the pairs leave in (hash, seq) order
/// with each bucket sorted on its own, 16 bytes a pair in memory.
struct NewIDs {
    /// How far a hash is shifted to its bucket (64: one bucket).
    private let shift: UInt64
    private var buckets: [[EventIDs.Entry]]
    /// Pairs added.
    private(set) var count = 0

    /// `bucketBits`: the top bits of a hash that pick its bucket (2^bits buckets).
    init(bucketBits: Int = Tuning.newIDsBucketBits) {
        let bits = min(max(0, bucketBits), 20)
        shift = UInt64(64 - bits)
        buckets = Array(repeating: [], count: 1 << bits)
    }

    /// The bucket of `hash`: its top bits with the sign bit flipped, so that buckets go from
    /// the most negative hash to the largest.
    private func bucket(of hash: Int64) -> Int {
        Int((UInt64(bitPattern: hash) ^ (1 << 63)) >> shift)
    }

    mutating func append(_ e: EventIDs.Entry) {
        buckets[bucket(of: e.hash)].append(e)
        count += 1
    }

    /// The seqs added under `hash`, in arrival order.
    func seqs(of hash: Int64) -> [Int64] {
        var out: [Int64] = []
        for e in buckets[bucket(of: hash)] where e.hash == hash { out.append(e.seq) }
        return out.sorted()
    }

    /// Hands every pair to `body` in (hash, seq) order, bucket after bucket, and leaves the
    /// set empty (its buckets keep their room for the next pairs).
    mutating func drain(_ body: (EventIDs.Entry) throws -> Void) rethrows {
        for b in buckets.indices where !buckets[b].isEmpty {
            buckets[b].sort()
            for e in buckets[b] { try body(e) }
            buckets[b].removeAll(keepingCapacity: true)
        }
        count = 0
    }
}
