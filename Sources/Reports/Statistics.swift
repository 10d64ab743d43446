/// The statistics the reports use, exactly as DESIGN.md defines them.
public enum Statistics {
    /// Percentile `p` (0…1) of `sorted` by linear interpolation between closest ranks
    /// (numpy's default, DuckDB's quantile_cont). nil for no values.
    public static func percentile(sorted: [Double], _ p: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let h = Double(sorted.count - 1) * min(max(p, 0), 1)
        let lo = Int(h.rounded(.down))
        let hi = min(lo + 1, sorted.count - 1)
        return sorted[lo] + (h - Double(lo)) * (sorted[hi] - sorted[lo])
    }

    /// `percentile(sorted: values.sorted(), p)` without sorting: the two order statistics
    /// it interpolates between are selected in linear time (same value, bit for bit).
    public static func percentile(unsorted values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        var a = values
        let h = Double(a.count - 1) * min(max(p, 0), 1)
        let lo = Int(h.rounded(.down))
        let hi = min(lo + 1, a.count - 1)
        let low = select(&a, lo)
        // After selecting rank lo, every later element is >= it: rank lo+1 is their minimum.
        let high = hi == lo ? low : (a[(lo + 1)...].min() ?? low)
        return low + (h - Double(lo)) * (high - low)
    }

    /// Rearranges `a` so that `a[k]` is the k-th smallest, smaller-or-equal before and
    /// greater-or-equal after it (Hoare quickselect, median-of-three pivots); returns `a[k]`.
    static func select(_ a: inout [Double], _ k: Int) -> Double {
        var left = 0, right = a.count - 1
        while right > left {
            let mid = left + (right - left) / 2
            // Median of three as pivot value.
            let x = a[left], y = a[mid], z = a[right]
            let pivot = max(min(x, y), min(max(x, y), z))
            var i = left, j = right
            while i <= j {
                while a[i] < pivot { i += 1 }
                while a[j] > pivot { j -= 1 }
                if i <= j {
                    a.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j {
                right = j
            } else if k >= i {
                left = i
            } else {
                break
            }
        }
        return a[k]
    }

    /// `values` in ascending order: a radix sort, in linear time, when they are many and none
    /// is negative (the time between two steps of tens of thousands of users).
    static func sorted(_ values: [Int64]) -> [Int64] {
        guard values.count >= 256, let top = values.max(), let bottom = values.min(), bottom >= 0 else { return values.sorted() }
        let bits = 11, buckets = 1 << bits
        var a = values, b = values
        var shift = 0
        while shift < 64, top >> Int64(shift) > 0 {
            var counts = [Int](repeating: 0, count: buckets + 1)
            for v in a { counts[Int((v >> Int64(shift)) & Int64(buckets - 1)) + 1] += 1 }
            for i in 1...buckets { counts[i] += counts[i - 1] }
            for v in a {
                let digit = Int((v >> Int64(shift)) & Int64(buckets - 1))
                b[counts[digit]] = v
                counts[digit] += 1
            }
            swap(&a, &b)
            shift += bits
        }
        return a
    }

    public static func mean(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    /// The 95 % Wilson score interval for `successes` out of `trials`.
    public static func wilson(successes: Int, trials: Int, z: Double = 1.959963984540054) -> (low: Double, high: Double)? {
        guard trials > 0 else { return nil }
        let n = Double(trials)
        let p = Double(successes) / n
        let z2 = z * z
        let denominator = 1 + z2 / n
        let center = (p + z2 / (2 * n)) / denominator
        let half = z * ((p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()) / denominator
        return (max(0, center - half), min(1, center + half))
    }

    /// Histogram bins with "nice" edges (seconds, minute, hour or day multiples) covering every
    /// value; at most `maxBins` bins. A long tail (users who left and came back days later)
    /// would squeeze everyone else into the first bin, so bins span the values up to p95
    /// and the last bin reaches to the maximum: it holds the tail, however long.
    public static func histogram(_ values: [Double], maxBins: Int = 12) -> [(from: Double, to: Double, count: Int)] {
        histogram(sorted: values.sorted(), maxBins: maxBins)
    }

    /// `histogram` of values already in ascending order.
    static func histogram(sorted values: [Double], maxBins: Int = 12) -> [(from: Double, to: Double, count: Int)] {
        guard let lo = values.first, let max = values.last else { return [] }
        let p95 = percentile(sorted: values, 0.95) ?? max
        let tail = max > 3 * p95 && p95 > lo
        var bins = evenBins(values, lo: lo, hi: tail ? p95 : max, maxBins: tail ? maxBins - 1 : maxBins)
        if tail, let last = bins.last {
            let beyond = values.filter { $0 >= last.to }.count
            bins.append((last.to, max, beyond))
        }
        return bins
    }

    static func evenBins(_ values: [Double], lo: Double, hi: Double, maxBins: Int) -> [(from: Double, to: Double, count: Int)] {
        let span = max(hi - lo, 1)
        let niceWidths: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800,
                                    21600, 43200, 86400, 172_800, 604_800]
        var width = niceWidths.last ?? 86400
        for w in niceWidths where (span / w).rounded(.up) <= Double(maxBins) {
            width = w
            break
        }
        while (span / width).rounded(.up) > Double(maxBins) { width *= 2 }
        let start = (lo / width).rounded(.down) * width
        let bins = max(1, Int(((hi - start) / width).rounded(.down)) + 1)
        var counts = [Int](repeating: 0, count: bins)
        let end = start + Double(bins) * width
        for v in values where v < end {
            let i = min(bins - 1, max(0, Int(((v - start) / width).rounded(.down))))
            counts[i] += 1
        }
        return counts.enumerated().map { (start + Double($0.offset) * width, start + Double($0.offset + 1) * width, $0.element) }
    }
}
