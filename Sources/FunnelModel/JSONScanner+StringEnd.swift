extension JSONScanner {
    /// Where a string whose content starts at `start` (after its opening quote) ends: the
    /// offset of its closing quote, and whether its content is all ASCII. Nil when a
    /// backslash or a control byte comes before the closing quote (an escaped or invalid
    /// string, for `scanString` to decode or reject) or `b` ends first. Bytes of 0x80 and
    /// above count as ordinary, as in `scanString`; the caller checks a non-ASCII content's
    /// UTF-8. Sixteen bytes at a time while sixteen remain in `b`, never reading past it.
    @inlinable @inline(__always)
    public static func plainStringEnd(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, ascii: Bool)? {
        guard let base = b.baseAddress, start >= 0 else { return nil }
        let n = b.count
        let raw = UnsafeRawPointer(base)
        var i = start
        var ascii = true
        while i + 16 <= n {
            let lane = firstSpecialLane(raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self), orHigh: ascii)
            i += lane
            guard lane < 16 else { continue }
            let c = base[i]
            if c == 0x22 { return (i, ascii) }
            guard c >= 0x80 else { return nil }
            // The first non-ASCII byte: from here on only quotes, backslashes and controls stop the scan.
            ascii = false
            i += 1
        }
        while i < n {
            let c = base[i]
            if c == 0x22 { return (i, ascii) }
            if c == 0x5C || c < 0x20 { return nil }
            if c >= 0x80 { ascii = false }
            i += 1
        }
        return nil
    }

    /// The offset of the first `"`, `\\` or control byte in `b` at or after `start`, or
    /// `b.count` when none is: where `scanString` stops. Bytes of 0x80 and above count as
    /// ordinary. Sixteen bytes at a time while sixteen remain in `b`, never reading past it.
    @inlinable @inline(__always)
    public static func specialByte(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let n = b.count
        guard let base = b.baseAddress else { return n }
        let raw = UnsafeRawPointer(base)
        var i = start
        while i + 16 <= n {
            let lane = firstSpecialLane(raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self), orHigh: false)
            i += lane
            if lane < 16 { return i }
        }
        while i < n {
            let c = base[i]
            if c == 0x22 || c == 0x5C || c < 0x20 { return i }
            i += 1
        }
        return n
    }

    /// The first lane of `v` (sixteen bytes, the first in lane 0) that is `"` (0x22), `\\`
    /// (0x5C) or below 0x20, or with `orHigh` also 0x80 and above; 16 when none is.
    /// Lane-wise arithmetic that compiles to vector instructions: a lane's high bit is set by
    /// `x &- 1` exactly when x is zero, and by `v &- 0x20` below 0x20, for lanes below 0x80.
    @inlinable @inline(__always)
    static func firstSpecialLane(_ v: SIMD16<UInt8>, orHigh: Bool) -> Int {
        let ones = SIMD16<UInt8>(repeating: 1)
        let quote = v ^ SIMD16(repeating: 0x22), backslash = v ^ SIMD16(repeating: 0x5C)
        var flags = ((quote &- ones) | (backslash &- ones) | (v &- SIMD16(repeating: 0x20))) & ~v
        if orHigh { flags |= v }
        let words = unsafeBitCast(flags & SIMD16(repeating: 0x80), to: SIMD2<UInt64>.self)
        let low = UInt64(littleEndian: words[0]), high = UInt64(littleEndian: words[1])
        if low != 0 { return low.trailingZeroBitCount >> 3 }
        // No flag in the first eight lanes: 8 + 8 when none in the last eight either.
        return 8 + high.trailingZeroBitCount >> 3
    }
}
