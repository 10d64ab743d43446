/// The one binary search: the first position in `0..<count` where `isBefore` turns false.
/// `isBefore` must hold for a prefix of the positions and not after it (sorted keys:
/// `key(i) < k` gives the first key not below `k`; `key(i) <= k`, the first key above it).
@inlinable
public func partitionPoint(_ count: Int, isBefore: (Int) -> Bool) -> Int {
    var lo = 0, hi = count
    while lo < hi {
        let mid = (lo + hi) / 2
        if isBefore(mid) { lo = mid + 1 } else { hi = mid }
    }
    return lo
}
