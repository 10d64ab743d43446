/// The fold order of events: by event time, then by seq (arrival). Positions are sorted as
/// small keys, not the events.
public enum FoldOrder {
    /// An event's place in the fold order.
    public struct Key: Sendable {
        public var time: Int64
        public var seq: Int64

        @inlinable
        public init(time: Int64, seq: Int64) {
            self.time = time
            self.seq = seq
        }
    }

    /// Positions 0..<count sorted by their keys (`key(i)` is read once for each), the keys
    /// gathered first in temporary memory.
    @inlinable
    public static func indices(count: Int, key: (Int) -> Key) -> [Int] {
        withUnsafeTemporaryAllocation(of: Key.self, capacity: count) { keys in
            for i in 0..<count { keys.initializeElement(at: i, to: key(i)) }
            return indices(of: UnsafeBufferPointer(keys))
        }
    }

    /// Positions of `keys` sorted by time, then seq; equal keys keep their positions' order.
    public static func indices(of keys: UnsafeBufferPointer<Key>) -> [Int] {
        let count = keys.count
        // Events most often come in fold order already: then the positions are their order.
        // Otherwise, when the seqs rise with the positions (events held as they arrived), a
        // position stands for its seq: each time and position packed in one word and the
        // words sorted, without comparing pairs.
        var inOrder = true, seqsRise = true
        var earliest = Int64.max, latest = Int64.min
        for i in 0..<count {
            let k = keys[i]
            if i > 0 {
                let previous = keys[i - 1]
                if inOrder, !(previous.time < k.time || (previous.time == k.time && previous.seq < k.seq)) { inOrder = false }
                if k.seq < previous.seq { seqsRise = false }
            }
            earliest = min(earliest, k.time)
            latest = max(latest, k.time)
        }
        if inOrder { return [Int](0..<count) }
        let (span, overflow) = latest.subtractingReportingOverflow(earliest)
        if seqsRise, !overflow, count <= positions, span < times {
            // Packed, sorted and unpacked in the result's own memory.
            return [Int](unsafeUninitializedCapacity: count) { b, initialized in
                b.withMemoryRebound(to: UInt64.self) { words in
                    var w = words
                    for i in 0..<count { w.initializeElement(at: i, to: UInt64(keys[i].time &- earliest) << positionBits | UInt64(i)) }
                    if count <= insertionSortMax { insertionSort(w) } else { w.sort() }
                    for i in 0..<count { w[i] &= UInt64(positions - 1) }
                }
                initialized = count
            }
        }
        var pairs = (0..<count).map { (time: keys[$0].time, seq: keys[$0].seq, index: $0) }
        pairs.sort { $0.time != $1.time ? $0.time < $1.time : $0.seq < $1.seq }
        return pairs.map(\.index)
    }

    /// A time and a position packed in one word: the time since the earliest in the high
    /// bits, the position in the low ones.
    private static let positionBits: UInt64 = 20
    /// Positions that fit, and times since the earliest that fit (about 200 days in microseconds).
    private static let positions = 1 << 20
    private static let times = Int64(1) << 44
    /// Lists this long at most are sorted by insertion (a journey's events of a day, most
    /// often): no merge runs to set up, each word moved once per word it passes.
    private static let insertionSortMax = 64

    private static func insertionSort(_ b: UnsafeMutableBufferPointer<UInt64>) {
        guard b.count > 1 else { return }
        for i in 1..<b.count {
            let x = b[i]
            var j = i
            while j > 0, b[j - 1] > x {
                b[j] = b[j - 1]
                j -= 1
            }
            b[j] = x
        }
    }
}
