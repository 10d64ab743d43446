import FunnelModel

/// The log's rows of consecutive seqs of one input, stored as one row of `event_blocks`:
/// one SQLite row for many events, because SQLite's cost of a row, not of its bytes, was the
/// largest part of writing the log.
///
/// Each event's columns are fixed-width decimal digits in `cols` (`stride` bytes an event),
/// so that a view can cut them with `substr` and `CAST` (docs/store.md): its user, flow,
/// event and step atoms (0: no step), its time, UTC offset and line number less the block's
/// smallest (the `*_base` columns), and where its body ends in `bodies`. Each column is as
/// wide as the block's largest value needs. `ids` holds each event id's hash, 8 bytes
/// little-endian.
struct EventBlock {
    /// The per-event columns, in the order they sit in `cols`.
    enum Column: Int, CaseIterable {
        case user, flow, event, step, ts, offset, line, bodyEnd

        /// The name of the block's column that holds this one's width.
        var widthName: String {
            switch self {
            case .user: "w_user"
            case .flow: "w_flow"
            case .event: "w_event"
            case .step: "w_step"
            case .ts: "w_ts"
            case .offset: "w_offset"
            case .line: "w_line"
            case .bodyEnd: "w_body"
            }
        }
    }

    /// What the block's row holds beside its blobs: its bases and column widths.
    struct Layout: Equatable {
        var tsBase: Int64 = 0
        var offsetBase: Int64 = 0
        var lineBase: Int64 = 0
        /// Each column's width, in `Column` order (held inline: a block read by seq allocates
        /// nothing for its layout).
        var widths = SIMD8<Int32>(repeating: 1)

        var stride: Int { Int(widths.wrappedSum()) }

        /// Where each column starts within an event's `stride` bytes.
        var starts: SIMD8<Int32> {
            var out = SIMD8<Int32>()
            for i in 1..<widths.scalarCount { out[i] = out[i - 1] + widths[i - 1] }
            return out
        }
    }

    /// One event of a block as its writer has it.
    struct Event {
        var idHash: Int64
        var user: Int64
        var flow: Int64
        var event: Int64
        /// 0: the line names no step.
        var step: Int64
        var ts: Int64
        var offset: Int64
        var line: Int64
    }

    /// The encoded block of `events`, whose bodies are `bodies` cut at `ends`.
    struct Encoded {
        var layout = Layout()
        var cols: [UInt8] = []
        var ids: [UInt8] = []
    }

    /// Encodes `events` (their bodies end at `ends` in the bodies' bytes) into `out`, reusing
    /// its buffers.
    static func encode(_ events: [Event], ends: [Int], into out: inout Encoded) {
        precondition(events.count == ends.count && !events.isEmpty)
        var layout = Layout()
        layout.tsBase = events.lazy.map(\.ts).min() ?? 0
        layout.offsetBase = events.lazy.map(\.offset).min() ?? 0
        layout.lineBase = events.lazy.map(\.line).min() ?? 0
        var largest = SIMD8<UInt64>()
        for (e, end) in zip(events, ends) {
            forEachColumn(e, end: end, layout) { i, v in largest[i] = max(largest[i], v) }
        }
        for i in 0..<largest.scalarCount { layout.widths[i] = Int32(digits(largest[i])) }
        out.layout = layout
        // Zeros first, then each value's digits from its column's right end.
        out.cols.removeAll(keepingCapacity: true)
        out.cols.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: layout.stride * events.count))
        let widths = layout.widths
        // The pairs' table read through one pointer: a static's every read checks that it is
        // made.
        digitPairs.withUnsafeBufferPointer { pairs in
            out.cols.withUnsafeMutableBufferPointer { cols in
                guard var at = cols.baseAddress else { return }
                for (e, end) in zip(events, ends) {
                    forEachColumn(e, end: end, layout) { i, v in
                        at += Int(widths[i])
                        writeDigits(v, endingAt: at, pairs: pairs)
                    }
                }
            }
        }
        // Each id's hash written in place: room for all of them made at once.
        out.ids.removeAll(keepingCapacity: true)
        out.ids.append(contentsOf: repeatElement(0, count: 8 * events.count))
        out.ids.withUnsafeMutableBytes { ids in
            for (k, e) in events.enumerated() {
                ids.storeBytes(of: UInt64(bitPattern: e.idHash).littleEndian, toByteOffset: 8 * k, as: UInt64.self)
            }
        }
    }

    /// Writes `v`'s decimal digits, but for leading zeros, into the bytes before `end` (the
    /// column's zeros already there): two digits a division, from `pairs` (`digitPairs`).
    @inline(__always)
    private static func writeDigits(_ v: UInt64, endingAt end: UnsafeMutablePointer<UInt8>, pairs: UnsafeBufferPointer<UInt8>) {
        var rest = v
        var at = end
        while rest >= 10 {
            let pair = Int(rest % 100) * 2
            rest /= 100
            at -= 2
            at[0] = pairs[pair]
            at[1] = pairs[pair + 1]
        }
        if rest > 0 { (at - 1).pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest) }
    }

    /// "00" to "99", two bytes each.
    private static let digitPairs: [UInt8] = (0..<100).flatMap { n in
        [UInt8(ascii: "0") + UInt8(n / 10), UInt8(ascii: "0") + UInt8(n % 10)]
    }

    /// Calls `body` with each of an event's column values as stored, in column order (each
    /// non-negative: atoms, and differences from the block's bases).
    @inline(__always)
    private static func forEachColumn(_ e: Event, end: Int, _ layout: Layout, _ body: (Int, UInt64) -> Void) {
        body(0, UInt64(bitPattern: e.user))
        body(1, UInt64(bitPattern: e.flow))
        body(2, UInt64(bitPattern: e.event))
        body(3, UInt64(bitPattern: e.step))
        body(4, UInt64(bitPattern: e.ts &- layout.tsBase))
        body(5, UInt64(bitPattern: e.offset &- layout.offsetBase))
        body(6, UInt64(bitPattern: e.line &- layout.lineBase))
        body(7, UInt64(end))
    }

    /// Decimal digits `v` needs (at least one).
    static func digits(_ v: UInt64) -> Int {
        var n = 1
        var rest = v / 10
        while rest > 0 {
            n += 1
            rest /= 10
        }
        return n
    }
}

extension EventBlock {
    /// A stored block read in place: its blobs are valid as long as the statement row they
    /// were read from.
    struct View {
        let firstSeq: Int64
        let count: Int
        let inputID: Int64
        let layout: Layout
        let starts: SIMD8<Int32>
        let cols: UnsafeRawBufferPointer
        let ids: UnsafeRawBufferPointer
        let bodies: UnsafeRawBufferPointer

        /// A view of a block's row, or nil when its blobs do not match its layout.
        init?(firstSeq: Int64, count: Int, inputID: Int64, layout: Layout,
              cols: UnsafeRawBufferPointer, ids: UnsafeRawBufferPointer, bodies: UnsafeRawBufferPointer) {
            guard count > 0, all(layout.widths .> 0 .& layout.widths .<= 19),
                  cols.count == layout.stride * count, ids.count == 8 * count else { return nil }
            self.firstSeq = firstSeq
            self.count = count
            self.inputID = inputID
            self.layout = layout
            self.starts = layout.starts
            self.cols = cols
            self.ids = ids
            self.bodies = bodies
        }

        /// The seqs the block holds.
        var seqs: Range<Int64> { firstSeq..<(firstSeq + Int64(count)) }

        /// Column `column` of event `k` (digits only: anything else reads as a corrupt block).
        func value(_ column: Column, _ k: Int) -> UInt64? {
            let start = k * layout.stride + Int(starts[column.rawValue])
            var v: UInt64 = 0
            for i in start..<(start + Int(layout.widths[column.rawValue])) {
                let d = cols[i] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                v = v * 10 + UInt64(d)
            }
            return v
        }

        func idHash(_ k: Int) -> Int64 {
            Int64(bitPattern: UInt64(littleEndian: ids.loadUnaligned(fromByteOffset: 8 * k, as: UInt64.self)))
        }

        /// Event `k`'s body, nil when the block's ends do not cut `bodies`.
        func body(_ k: Int) -> UnsafeRawBufferPointer? {
            let start = k == 0 ? 0 : value(.bodyEnd, k - 1).map(Int.init) ?? -1
            guard let end = value(.bodyEnd, k).map(Int.init), start >= 0, start <= end, end <= bodies.count else { return nil }
            return UnsafeRawBufferPointer(rebasing: bodies[start..<end])
        }
    }
}
