#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Interns byte strings to small integers without allocating per lookup: an open-addressing
/// table over one byte arena. Used on the ingest hot path (keys, atoms, shapes, event caches).
public struct ByteInterner: Sendable {
    private var arena: [UInt8] = []
    private var entries: [(hash: UInt64, start: Int, count: Int)] = []
    private var slots: [Int32] = [Int32](repeating: -1, count: 64)

    public init() {}

    public var count: Int { entries.count }

    /// Bytes of the strings held.
    public var byteCount: Int { arena.count }

    /// The table's own hash (in memory only): sixteen bytes a step, each step's two words
    /// folded by one full-width multiply (as wyhash does), and the last bytes read as words
    /// that overlap the ones before rather than a byte at a time.
    @inline(__always)
    static func tableHash(_ b: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard let p = b.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(p)
        let n = b.count
        let k0: UInt64 = 0xA076_1D64_78BD_642F, k1: UInt64 = 0xE703_7ED1_A0B4_28DB
        @inline(__always) func fold(_ x: UInt64, _ y: UInt64) -> UInt64 {
            let (high, low) = x.multipliedFullWidth(by: y)
            return high ^ low
        }
        @inline(__always) func word(_ i: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) }
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(n)
        let a: UInt64, c: UInt64
        if n > 16 {
            var i = 0
            while i + 16 < n {
                h = fold(word(i) ^ k0, word(i + 8) ^ h)
                i += 16
            }
            a = word(n - 16)
            c = word(n - 8)
        } else if n >= 8 {
            a = word(0)
            c = word(n - 8)
        } else if n >= 4 {
            a = UInt64(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
            c = UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)))
        } else if n > 0 {
            a = UInt64(p[0]) << 16 | UInt64(p[n >> 1]) << 8 | UInt64(p[n - 1])
            c = 0
        } else {
            a = 0
            c = 0
        }
        return fold(fold(a ^ k0, c ^ h) ^ k1, UInt64(n) ^ k0)
    }

    /// The id of `key` when it was interned, without adding it.
    public func lookup(_ key: UnsafeBufferPointer<UInt8>) -> Int? {
        let h = ByteInterner.tableHash(key)
        let mask = slots.count - 1
        var s = Int(truncatingIfNeeded: h) & mask
        while true {
            let id = slots[s]
            if id < 0 { return nil }
            if matches(entries[Int(id)], hash: h, key) { return Int(id) }
            s = (s + 1) & mask
        }
    }

    @inline(__always)
    private func matches(_ e: (hash: UInt64, start: Int, count: Int), hash h: UInt64, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        e.hash == h && sameBytes(e, key)
    }

    /// Whether the entry `e`'s bytes are `key`.
    @inline(__always)
    private func sameBytes(_ e: (hash: UInt64, start: Int, count: Int), _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard e.count == key.count else { return false }
        return arena.withUnsafeBufferPointer { a -> Bool in
            guard let ab = a.baseAddress, let kb = key.baseAddress else { return e.count == 0 }
            return memcmp(ab + e.start, kb, e.count) == 0
        }
    }

    /// Whether `id`'s bytes are `key` (no hash: for a caller that knows which id to expect).
    public func holds(_ id: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        id >= 0 && id < entries.count && sameBytes(entries[id], key)
    }

    /// The id of `key`, and whether it was new.
    public mutating func intern(_ key: UnsafeBufferPointer<UInt8>) -> (id: Int, isNew: Bool) {
        let h = ByteInterner.tableHash(key)
        var mask = slots.count - 1
        var s = Int(truncatingIfNeeded: h) & mask
        while true {
            let id = slots[s]
            if id < 0 { break }
            if matches(entries[Int(id)], hash: h, key) { return (Int(id), false) }
            s = (s + 1) & mask
        }
        let id = entries.count
        entries.append((h, arena.count, key.count))
        arena.append(contentsOf: key)
        if entries.count * 2 > slots.count {
            slots = [Int32](repeating: -1, count: slots.count * 2)
            mask = slots.count - 1
            for (i, e) in entries.enumerated() {
                var t = Int(truncatingIfNeeded: e.hash) & mask
                while slots[t] >= 0 { t = (t + 1) & mask }
                slots[t] = Int32(i)
            }
        } else {
            slots[s] = Int32(id)
        }
        return (id, true)
    }
}
