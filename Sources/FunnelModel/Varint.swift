/// Unsigned LEB128 varints (seven bits a byte, low bits first, the top bit set on all but the
/// last byte) and zigzag for signed values: the one codec of the store's compact bytes (stored
/// lines, user runs, journeys).
public enum Varint {
    /// The most bytes a 64-bit value takes.
    @inlinable public static var maxBytes: Int { 10 }

    @inlinable @inline(__always)
    public static func append(_ v: UInt64, to out: inout [UInt8]) {
        var v = v
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// Writes `v` at `p`, which has room for `maxBytes`; returns how many bytes it took.
    @inlinable @inline(__always)
    public static func write(_ v: UInt64, to p: UnsafeMutablePointer<UInt8>) -> Int {
        var v = v
        var n = 0
        while v >= 0x80 {
            p[n] = UInt8(truncatingIfNeeded: v) | 0x80
            n += 1
            v >>= 7
        }
        p[n] = UInt8(v)
        return n + 1
    }

    /// The varint at `i` of `b`, `i` moved past it; nil when `b` ends inside it or it runs
    /// past 64 bits (then `i` has moved past `maxBytes` bytes).
    @inlinable @inline(__always)
    public static func read(_ b: UnsafeRawBufferPointer, at i: inout Int) -> UInt64? {
        var v: UInt64 = 0
        var shift: UInt64 = 0
        while i < b.count {
            let c = b[i]
            i += 1
            v |= UInt64(c & 0x7F) << shift
            if c < 0x80 { return v }
            shift += 7
            if shift > 63 { return nil }
        }
        return nil
    }

    /// A signed value as an unsigned one, small magnitudes small.
    @inlinable @inline(__always)
    public static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }

    @inlinable @inline(__always)
    public static func unzigzag(_ u: UInt64) -> Int64 { Int64(bitPattern: (u >> 1) ^ (0 &- (u & 1))) }
}
