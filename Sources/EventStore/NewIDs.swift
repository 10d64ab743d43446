import FunnelModel
import LogFiles
import GRDB
import Foundation

/// The ids an input added so far, for finding a copy later in the same input. They are kept
/// the way the store keeps its runs: a short unsorted tail, and sorted chunks, a new chunk
/// merged into the one before while that one is no larger (up to `chunkLimit` pairs). A
/// lookup scans the tail and searches each chunk; an append costs a few moves in order (no
/// cache miss a line, as a hash table would), and the pairs leave in order by a merge of the
/// chunks, 16 bytes a pair in memory and no sorted copy.
struct NewIDs {
    let tailLimit: Int
    let chunkLimit: Int
    private var chunks: [[EventIDs.Entry]] = []
    private var tail: [EventIDs.Entry] = []
    /// Pairs added.
    private(set) var count = 0

    init(tailLimit: Int = Tuning.newIDsTail, chunkLimit: Int = Tuning.newIDsChunk) {
        self.tailLimit = max(1, tailLimit)
        self.chunkLimit = max(self.tailLimit, chunkLimit)
        tail.reserveCapacity(self.tailLimit)
    }

    mutating func append(_ e: EventIDs.Entry) {
        tail.append(e)
        count += 1
        if tail.count >= tailLimit { settleTail() }
    }

    /// Sorts the tail into a chunk, merging it into the chunks before while they are no larger.
    private mutating func settleTail() {
        var run = tail
        run.sort()
        tail.removeAll(keepingCapacity: true)
        while let last = chunks.last, last.count <= run.count, last.count + run.count <= chunkLimit {
            run = NewIDs.merge(chunks.removeLast(), run)
        }
        chunks.append(run)
    }

    private static func merge(_ a: [EventIDs.Entry], _ b: [EventIDs.Entry]) -> [EventIDs.Entry] {
        var out: [EventIDs.Entry] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if b[j] < a[i] {
                out.append(b[j])
                j += 1
            } else {
                out.append(a[i])
                i += 1
            }
        }
        out.append(contentsOf: a[i...])
        out.append(contentsOf: b[j...])
        return out
    }

    /// The seqs added under `hash`, in arrival order.
    func seqs(of hash: Int64) -> [Int64] {
        var out: [Int64] = []
        for e in tail where e.hash == hash { out.append(e.seq) }
        for chunk in chunks {
            var lo = partitionPoint(chunk.count) { chunk[$0].hash < hash }
            while lo < chunk.count && chunk[lo].hash == hash {
                out.append(chunk[lo].seq)
                lo += 1
            }
        }
        return out.sorted()
    }

    /// Hands every pair to `body` in (hash, seq) order, merging the chunks, and leaves the
    /// set empty.
    mutating func drain(_ body: (EventIDs.Entry) throws -> Void) rethrows {
        if !tail.isEmpty { settleTail() }
        let chunks = self.chunks
        self = NewIDs(tailLimit: tailLimit, chunkLimit: chunkLimit)
        // A binary heap of chunk numbers, by each chunk's next pair.
        var next = [Int](repeating: 0, count: chunks.count)
        var heap = Array(chunks.indices)
        func less(_ a: Int, _ b: Int) -> Bool { chunks[a][next[a]] < chunks[b][next[b]] }
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < heap.count && less(heap[l], heap[m]) { m = l }
                if r < heap.count && less(heap[r], heap[m]) { m = r }
                if m == i { return }
                heap.swapAt(i, m)
                i = m
            }
        }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
        while let top = heap.first {
            try body(chunks[top][next[top]])
            next[top] += 1
            if next[top] == chunks[top].count {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { siftDown(0) }
        }
    }
}
