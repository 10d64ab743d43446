import FunnelModel
import LogFiles

/// Writes a journey's stored form (see `Journey+Binary`).
package struct BinaryWriter {
    package var bytes: [UInt8] = []
    /// The names a journey's object keys, string values and steps are written as indexes
    /// into (`.none`: every one in full).
    package var names = JourneyNames.none

    package mutating func byte(_ b: UInt8) { bytes.append(b) }

    package mutating func uint(_ v: UInt64) { Varint.append(v, to: &bytes) }

    package mutating func int(_ v: Int64) { uint(Varint.zigzag(v)) }

    /// An optional seq: 0 for none, else the seq + 1.
    package mutating func seq(_ s: Int64?) { uint(s.map { UInt64($0) + 1 } ?? 0) }

    package mutating func double(_ d: Double) {
        var bits = d.bitPattern
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }

    package mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { u in
            uint(UInt64(u.count))
            bytes.append(contentsOf: u)
        }
    }

    /// Optional strings: 0 for nil, else length + 1.
    package mutating func string(_ s: String?) {
        guard var s else { bytes.append(0); return }
        s.withUTF8 { u in
            uint(UInt64(u.count) + 1)
            bytes.append(contentsOf: u)
        }
    }

    package mutating func timestamp(_ t: Timestamp) {
        int(t.micros)
        int(Int64(t.offsetSeconds))
    }

    package mutating func timestamp(_ t: Timestamp?) {
        guard let t else { bytes.append(0); return }
        bytes.append(1)
        timestamp(t)
    }

    /// A timestamp as its difference from `base` (micros and offset).
    package mutating func timestamp(_ t: Timestamp, from base: Timestamp) {
        int(t.micros &- base.micros)
        int(Int64(t.offsetSeconds) - Int64(base.offsetSeconds))
    }

    package mutating func timestamp(_ t: Timestamp?, from base: Timestamp) {
        guard let t else { bytes.append(0); return }
        bytes.append(1)
        timestamp(t, from: base)
    }

    /// A name (version 2): 0 for none, 1 and its text for one `names` does not have, k + 2
    /// for its k-th.
    package mutating func name(_ s: String?) {
        guard let s else { bytes.append(0); return }
        if let k = names.index(of: s) {
            uint(UInt64(k) + 2)
        } else {
            bytes.append(1)
            string(s)
        }
    }

    /// A step as `name(_:)` writes it, by its code (`FlowVocabulary.stepCodes`), the `i`th
    /// of `codes`, when it has one: the steps come first in `names`, so a code is the step's
    /// index there.
    package mutating func name(_ s: String, _ i: Int, of codes: [Int32]) {
        guard i < codes.count, codes[i] >= 0 else { return name(s) }
        uint(UInt64(codes[i]) + 2)
    }

    /// Seconds: 0 for none, 1 and whole microseconds when they give back the same value,
    /// else 2 and the double's bits.
    package mutating func seconds(_ s: Double?) {
        guard let s else { bytes.append(0); return }
        if let micros = BinaryWriter.wholeMicros(s) {
            bytes.append(1)
            uint(micros)
        } else {
            bytes.append(2)
            double(s)
        }
    }

    /// `s` as microseconds when `Double(micros) / 1_000_000` gives back exactly `s`.
    package static func wholeMicros(_ s: Double) -> UInt64? {
        let micros = (s * 1_000_000).rounded()
        guard micros >= 0, micros < 9_007_199_254_740_992, Double(Int64(micros)) / 1_000_000 == s else { return nil }
        return UInt64(micros)
    }

    package mutating func object(_ o: [String: JSONValue]) {
        uint(UInt64(o.count))
        // The pairs sorted once by key: no key is looked up again.
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
