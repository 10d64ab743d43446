/// 64-bit FNV-1a (Fowler–Noll–Vo), the one stable byte hash: the same on every run and
/// machine, unlike `Hasher`. Stores persist it (`EventIdentity.idHash`), so it never changes:
/// `FNV1a.hash("a")` is `0xaf63dc4c8601ec8c`, as in the published test vectors.
public enum FNV1a {
    public static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    public static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// The hash of `bytes`, from `basis` (a different basis gives an independent hash).
    @inlinable
    public static func hash(_ bytes: UnsafeBufferPointer<UInt8>, basis: UInt64 = offsetBasis) -> UInt64 {
        var h = basis
        for b in bytes { h = (h ^ UInt64(b)) &* prime }
        return h
    }

    /// The hash of a byte sequence (text as `.utf8`), from `basis`.
    @inlinable
    public static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes, basis: UInt64 = offsetBasis) -> UInt64 {
        var h = basis
        for b in bytes { h = (h ^ UInt64(b)) &* prime }
        return h
    }
}
