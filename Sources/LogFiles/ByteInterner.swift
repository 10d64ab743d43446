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

    /// The table's own hash: eight bytes a step (in memory only).
    @inline(__always)
    static func tableHash(_ b: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard let p = b.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(p)
        let n = b.count
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(n)
        var i = 0
        while i + 8 <= n {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 29
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            tail |= UInt64(p[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* 0x94D0_49BB_1331_11EB
        return h ^ (h >> 32)
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
