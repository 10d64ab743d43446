import Simulator

/// The draws the scanner and timestamp tests make from the simulator's generator: the same
/// numbers for a seed on every run.
extension SplitMix64 {
    /// A number below `n`.
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// One of `a`.
    mutating func pick<T>(_ a: [T]) -> T { a[below(a.count)] }
}
