import FunnelModel
import LogFiles

/// Writes a journey's stored form (see `Journey+Binary`) into memory it owns: each byte and
/// varint is stored in place after one room check, not appended to an array a byte at a time.
package struct BinaryWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    /// The names a journey's object keys, string values and steps are written as indexes
    /// into (`.none`: every one in full).
    package var names = JourneyNames.none

    /// A writer with room for `capacity` bytes before it grows.
    package init(capacity: Int = 64) {
        self.capacity = max(capacity, Varint.maxBytes)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written.
    package consuming func finish() -> [UInt8] {
        [UInt8](UnsafeBufferPointer(start: base, count: count))
    }

    /// Room for `n` more bytes.
    @inline(__always)
    private mutating func reserve(_ n: Int) {
        if count + n > capacity { grow(to: count + n) }
    }

    private mutating func grow(to needed: Int) {
        let wider = max(needed, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: wider)
        moved.moveInitialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = wider
    }

    package mutating func byte(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count += 1
    }

    package mutating func uint(_ v: UInt64) {
        reserve(Varint.maxBytes)
        count += Varint.write(v, to: base + count)
    }

    package mutating func int(_ v: Int64) { uint(Varint.zigzag(v)) }

    /// `u`'s bytes as they are.
    private mutating func raw(_ u: UnsafeBufferPointer<UInt8>) {
        guard let p = u.baseAddress, u.count > 0 else { return }
        reserve(u.count)
        (base + count).update(from: p, count: u.count)
        count += u.count
    }

    /// An optional seq: 0 for none, else the seq + 1.
    package mutating func seq(_ s: Int64?) { uint(s.map { UInt64($0) + 1 } ?? 0) }

    package mutating func double(_ d: Double) {
        var bits = d.bitPattern
        for _ in 0..<8 {
            byte(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }

    package mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { u in
            uint(UInt64(u.count))
            raw(u)
        }
    }

    /// Optional strings: 0 for nil, else length + 1.
    package mutating func string(_ s: String?) {
        guard var s else { byte(0); return }
        s.withUTF8 { u in
            uint(UInt64(u.count) + 1)
            raw(u)
        }
    }

    package mutating func timestamp(_ t: Timestamp) {
        int(t.micros)
        int(Int64(t.offsetSeconds))
    }

    package mutating func timestamp(_ t: Timestamp?) {
        guard let t else { byte(0); return }
        byte(1)
        timestamp(t)
    }

    /// A timestamp as its difference from `base` (micros and offset).
    package mutating func timestamp(_ t: Timestamp, from base: Timestamp) {
        int(t.micros &- base.micros)
        int(Int64(t.offsetSeconds) - Int64(base.offsetSeconds))
    }

    package mutating func timestamp(_ t: Timestamp?, from base: Timestamp) {
        guard let t else { byte(0); return }
        byte(1)
        timestamp(t, from: base)
    }

    /// A name (version 2): 0 for none, 1 and its text for one `names` does not have, k + 2
    /// for its k-th.
    package mutating func name(_ s: String?) {
        guard let s else { byte(0); return }
        if let k = names.index(of: s) {
            uint(UInt64(k) + 2)
        } else {
            byte(1)
            string(s)
        }
    }

    /// A step as `name(_:)` writes it, by its code (`FlowVocabulary.stepCodes`), the `i`th
    /// of `codes`, when it has one: the steps come first in `names`, so a code is the step's
    /// index there. The name is read only for a step without a code.
    package mutating func name(_ s: @autoclosure () -> String, _ i: Int, of codes: [Int32]) {
        guard i < codes.count, codes[i] >= 0 else { return name(s()) }
        uint(UInt64(codes[i]) + 2)
    }

    /// Seconds: 0 for none, 1 and whole microseconds when they give back the same value,
    /// else 2 and the double's bits.
    package mutating func seconds(_ s: Double?) {
        guard let s else { byte(0); return }
        if let micros = BinaryWriter.wholeMicros(s) {
            byte(1)
            uint(micros)
        } else {
            byte(2)
            double(s)
        }
    }

    /// `s` as microseconds when `Double(micros) / 1_000_000` gives back exactly `s`.
    package static func wholeMicros(_ s: Double) -> UInt64? {
        let micros = (s * 1_000_000).rounded()
        guard micros >= 0, micros < 9_007_199_254_740_992, Double(Int64(micros)) / 1_000_000 == s else { return nil }
        return UInt64(micros)
    }

    /// A journey's answers or flags, the bytes `object(_:)` writes for their dictionary: when
    /// `names` are the ones their codes were built with, each written by its key's index there
    /// in code order (the keys' text order, which `object` sorts named keys in), without a lookup.
    package mutating func values(_ v: KeyedValues) {
        let indexes = v.keys.nameIndexes
        guard v.allCoded, v.keys === names.answerKeys || v.keys === names.flagKeys, !indexes.isEmpty else {
            return object(v.dictionary)
        }
        uint(UInt64(v.count))
        for code in indexes.indices {
            guard let x = v.value(code: Int32(code)) else { continue }
            uint(UInt64(indexes[code]) + 2)
            value(x)
        }
    }

    package mutating func object(_ o: [String: JSONValue]) {
        uint(UInt64(o.count))
        // Keys the definition names are ordered by their rank among its names (the order of
        // the strings themselves) and written by index; any other key sorts the pairs by text.
        var named: [(rank: Int32, index: Int, value: JSONValue)] = []
        named.reserveCapacity(o.count)
        for (key, v) in o {
            guard let k = names.index(of: key) else { return pairs(o) }
            named.append((names.rank(ofIndex: k), k, v))
        }
        if named.count > 1 { named.sort { $0.rank < $1.rank } }
        for pair in named {
            uint(UInt64(pair.index) + 2)
            value(pair.value)
        }
    }

    /// `o`'s pairs sorted by key (their count already written).
    private mutating func pairs(_ o: [String: JSONValue]) {
        for (key, v) in o.sorted(by: { $0.key < $1.key }) {
            name(key)
            value(v)
        }
    }

    package mutating func value(_ v: JSONValue) {
        switch v {
        case .null: byte(0)
        case .bool(let b): byte(b ? 2 : 1)
        case .number(let n):
            byte(3)
            string(n)
        case .string(let s):
            // Version 2: tag 7 and the index of a name the definition has.
            if let k = names.index(of: s) {
                byte(7)
                uint(UInt64(k))
            } else {
                byte(4)
                string(s)
            }
        case .array(let items):
            byte(5)
            uint(UInt64(items.count))
            for item in items { value(item) }
        case .object(let o):
            byte(6)
            object(o)
        }
    }
}
