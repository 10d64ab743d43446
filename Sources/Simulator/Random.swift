import FunnelModel

/// SplitMix64: a small, fast, seedable generator (Steele, Lea, Flood 2014). The simulator
/// uses it everywhere instead of the system generator so that output is a function of the
/// seed alone.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    /// The SplitMix64 finalizer: a bijection on 64-bit values with good avalanche, also used
    /// to derive independent seeds and unique event ids.
    @inline(__always)
    public static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A stable 64-bit hash of text (FNV-1a, then mixed): the same on every run and machine,
    /// unlike `Hasher`.
    public static func hash(_ text: String, seed: UInt64 = 0) -> UInt64 {
        mix(FNV1a.hash(text.utf8, basis: FNV1a.offsetBasis ^ seed))
    }

    /// A double in [0, 1).
    @inline(__always)
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// True with probability `p`.
    @inline(__always)
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// An integer in the closed range.
    @inline(__always)
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    /// A value between `low` and `high` spread evenly on a log scale (waits, gaps).
    public mutating func logUniform(_ low: Double, _ high: Double) -> Double {
        low * pow2(log2Ratio: log2(high / low) * unit())
    }

    private func pow2(log2Ratio x: Double) -> Double { exp2(x) }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The hash of a seed and a name as a number in [0, 1): per-step and per-flag tuning that
/// depends on the seed only.
func unitHash(_ seed: UInt64, _ name: String) -> Double {
    Double(SplitMix64.hash(name, seed: SplitMix64.mix(seed)) >> 11) * 0x1.0p-53
}
