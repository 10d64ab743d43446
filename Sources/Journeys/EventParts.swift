import FunnelModel

/// The names, steps and contexts of one input's held events, each distinct combination kept
/// once. The decoder hands equal values over as one shared value, so a combination is
/// recognised by its bits: equal bits are the same strings and dictionaries (the table keeps
/// them alive), and equal values with other bits are merely kept twice.
package struct EventParts: Sendable {
    package struct Parts: Sendable {
        package var rawName: String
        package var step: String?
        package var context: EventContext
    }

    /// What a fold reads of a combination besides its values: the known event its name is,
    /// and its context's number (equal numbers are the same context; see `contextID`).
    package struct Derived: Sendable {
        package var known: EventName?
        package var contextID: Int32
    }

    /// A combination's bits (up to 80 bytes: `Parts` is 80 on a 64-bit machine).
    package struct Bits: Hashable, Sendable {
        package var w: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
            = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

        package init() {}

        package init?<T>(_ value: T) {
            let size = MemoryLayout<T>.size
            guard size <= 80 else { return nil }
            withUnsafeMutableBytes(of: &w) { out in
                withUnsafeBytes(of: value) { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<size])) }
            }
        }

        package static func == (a: Bits, b: Bits) -> Bool {
            withUnsafeBytes(of: a.w) { x in withUnsafeBytes(of: b.w) { y in x.elementsEqual(y) } }
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(mix)
        }

        /// A cheap mix of the words (the hash, and the slot in `EventParts.recent`).
        package var mix: UInt64 {
            var h: UInt64 = 0x9E37_79B9_7F4A_7C15
            withUnsafeBytes(of: w) { raw in
                for i in 0..<10 {
                    h = (h ^ raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) &* 0x100_0000_01B3
                    h ^= h >> 29
                }
            }
            return h
        }
    }

    package private(set) var list: [Parts] = []
    package private(set) var derived: [Derived] = []
    private var index: [Bits: Int32] = [:]
    /// The last combination seen in each of 1,024 slots (by `Bits.mix`), with its bits: most
    /// events find theirs here without a dictionary lookup.
    private var recent = [Int32](repeating: -1, count: EventParts.recentSlots)
    private var recentBits = [Bits](repeating: Bits(), count: EventParts.recentSlots)
    private static let recentSlots = Tuning.recentPartSlots
    /// Contexts numbered by their bits, as combinations are: a fold skips an event's context
    /// when the event before had the same number (applying a context twice changes nothing).
    private var contexts: [Bits: Int32] = [:]
    private var contextCount: Int32 = 0

    package init() {}

    package var count: Int { list.count }

    /// `e` as held, its values taken over (each is swapped out of the event for an empty
    /// one, so nothing is retained and released again as the event goes).
    package mutating func hold(seq: Int64, _ e: inout Event) -> HeldEvent {
        var properties: [String: JSONValue] = [:]
        swap(&properties, &e.properties)
        return HeldEvent(seq: seq, time: e.time, parts: intern(&e), properties: properties)
    }

    /// The index of `e`'s name, step and context, taking them over.
    private mutating func intern(_ e: inout Event) -> Int32 {
        var parts = Parts(rawName: "", step: nil, context: EventContext())
        swap(&parts.rawName, &e.rawName)
        swap(&parts.step, &e.step)
        swap(&parts.context, &e.context)
        guard let bits = Bits(parts) else {
            add(parts)
            return Int32(list.count - 1)
        }
        let slot = Int(truncatingIfNeeded: bits.mix >> 1) & (EventParts.recentSlots - 1)
        if recent[slot] >= 0 && recentBits[slot] == bits { return recent[slot] }
        let i: Int32
        if let known = index[bits] {
            i = known
        } else {
            i = Int32(list.count)
            add(parts)
            index[bits] = i
        }
        recent[slot] = i
        recentBits[slot] = bits
        return i
    }

    private mutating func add(_ parts: Parts) {
        var contextID: Int32 = -1
        if let bits = Bits(parts.context) {
            if let c = contexts[bits] {
                contextID = c
            } else {
                contextID = contextCount
                contexts[bits] = contextID
                contextCount += 1
            }
        }
        list.append(parts)
        derived.append(Derived(known: EventName(normalizing: parts.rawName), contextID: contextID))
    }

    /// Positions of `held` in fold order (time, then seq).
    package static func foldOrder(_ held: [HeldEvent]) -> [Int] {
        held.foldOrderIndices(time: { $0.time.micros }, seq: { $0.seq })
    }
}
