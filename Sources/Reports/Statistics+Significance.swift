import Foundation

extension Statistics {
    /// Fewer users than this in a segment, or in the rest of the selection, and a
    /// difference between them is not tested: the report says "too few users".
    public static let minimumUsersForTest = 30

    /// The two-sided p-value of the two-proportion z-test with pooled variance (the 2×2
    /// chi-square without continuity correction) for `x1` of `n1` against `x2` of `n2`; nil
    /// when either side has fewer than `minimumUsersForTest` users. Equal proportions of 0 or 1
    /// (no variance) give 1.
    public static func twoProportionPValue(_ x1: Int, of n1: Int, against x2: Int, of n2: Int) -> Double? {
        guard n1 >= minimumUsersForTest, n2 >= minimumUsersForTest,
              (0...n1).contains(x1), (0...n2).contains(x2) else { return nil }
        let a = Double(n1), b = Double(n2)
        let pooled = Double(x1 + x2) / (a + b)
        let variance = pooled * (1 - pooled) * (1 / a + 1 / b)
        guard variance > 0 else { return 1 }
        let z = (Double(x1) / a - Double(x2) / b) / variance.squareRoot()
        return erfc(abs(z) / 2.0.squareRoot())
    }

    /// The 95 % interval of the difference of two proportions, `x1/n1 − x2/n2`: Newcombe's
    /// hybrid score interval (his method 10), built from the two Wilson intervals, so that it
    /// stays within −1…1 and behaves near 0 and 1. nil when either side has no users.
    public static func differenceInterval(_ x1: Int, of n1: Int, against x2: Int, of n2: Int) -> (low: Double, high: Double)? {
        guard let (l1, u1) = wilson(successes: x1, trials: n1), let (l2, u2) = wilson(successes: x2, trials: n2) else { return nil }
        let p1 = Double(x1) / Double(n1), p2 = Double(x2) / Double(n2)
        let below = ((p1 - l1) * (p1 - l1) + (u2 - p2) * (u2 - p2)).squareRoot()
        let above = ((u1 - p1) * (u1 - p1) + (p2 - l2) * (p2 - l2)).squareRoot()
        return (p1 - p2 - below, p1 - p2 + above)
    }

    /// Benjamini–Hochberg adjusted p-values (the false discovery rate's step-up), in the
    /// order given; nil stays nil and does not count among the tests.
    public static func benjaminiHochberg(_ pValues: [Double?]) -> [Double?] {
        let tested = pValues.indices.filter { pValues[$0] != nil }.sorted { (pValues[$0] ?? 1) < (pValues[$1] ?? 1) }
        let m = Double(tested.count)
        var out = [Double?](repeating: nil, count: pValues.count)
        var running = 1.0
        for (rank, i) in tested.enumerated().reversed() {
            running = min(running, (pValues[i] ?? 1) * m / Double(rank + 1))
            out[i] = running
        }
        return out
    }
}
