import FunnelModel
import LogFiles
import LineParsing
import Foundation

/// What every store's writer counts the same way: keys, accepted and quarantined lines, an
/// input's fault, its flows' totals, and the run's summary.
extension IngestKey {
    /// The key of a line's envelope (refs into `b`), classified against `flowSteps`.
    package init(_ env: Envelope, in b: UnsafeBufferPointer<UInt8>, flowSteps: [String: Set<String>]) {
        let raw = env.name.string(in: b)
        let flow = env.flow.string(in: b)
        let step = env.step?.string(in: b)
        let normalized = EventName.normalized(raw)
        self.init(flow: flow, step: step, rawName: raw, normalized: normalized,
                  planned: IngestKey.isPlanned(name: normalized, flow: flow, step: step, flows: flowSteps))
    }
}

/// One flow's accepted events in an input, and their time span.
package struct FlowTotal: Sendable, Hashable {
    package var events = 0
    package var firstTs = Int64.max
    package var lastTs = Int64.min
}

extension InputResult {
    /// Counts an accepted event at `micros` in the input's and its key's totals.
    package mutating func countAccepted(at micros: Int64, key: inout IngestKey) {
        counts.accepted += 1
        key.accepted += 1
        key.firstTs = min(key.firstTs, micros)
        key.lastTs = max(key.lastTs, micros)
        if !key.planned {
            counts.unplanned += 1
            unplanned[UnplannedKey(flow: key.flow, step: key.step, event: key.normalized), default: 0] += 1
        }
    }

    /// Counts a quarantined line.
    package mutating func countQuarantined(_ rejection: Rejection) {
        counts.quarantined += 1
        quarantinedBy[rejection.code, default: 0] += 1
    }

    /// Records how the input's parse ended: nil when it was read to its end, else the ledger's
    /// error text (the fault, and an unfinished last line dropped), also kept as the failure.
    package mutating func end(_ end: ParseEnd, label: String) -> String? {
        guard let e = end.error else { return nil }
        var named = e
        named.path = label
        var message = named.description
        if end.droppedTailBytes > 0 { message += "; an unfinished last line of \(end.droppedTailBytes) bytes was dropped" }
        failure = .init(path: label, kind: e.kind, offset: e.offset, message: message, linesKept: counts.lines)
        return message
    }

    /// Each flow's accepted events and time span over `keys`.
    package static func flowTotals(_ keys: [IngestKey]) -> [String: FlowTotal] {
        var out: [String: FlowTotal] = [:]
        for k in keys where k.accepted > 0 {
            var t = out[k.flow] ?? FlowTotal()
            t.events += k.accepted
            t.firstTs = min(t.firstTs, k.firstTs)
            t.lastTs = max(t.lastTs, k.lastTs)
            out[k.flow] = t
        }
        return out
    }
}

extension IngestSummary {
    /// Adds an input's result; its unplanned events go to `unplanned` (see `sortedUnplanned`).
    package mutating func add(_ r: InputResult, unplanned: inout [UnplannedKey: Int]) {
        if let r = r.resumed { resumed.append(r) }
        lines += r.counts.lines
        accepted += r.counts.accepted
        duplicates += r.counts.duplicates
        conflicts += r.counts.conflicts
        quarantined += r.counts.quarantined
        self.unplanned += r.counts.unplanned
        for (k, v) in r.quarantinedBy { quarantinedBy[k, default: 0] += v }
        for (k, v) in r.unplanned { unplanned[k, default: 0] += v }
        if let f = r.failure { failures.append(f) }
    }

    /// The run's unplanned events, most frequent first (then by flow, step and event).
    package static func sortedUnplanned(_ unplanned: [UnplannedKey: Int]) -> [Unplanned] {
        unplanned.map { Unplanned(flow: $0.key.flow, step: $0.key.step, event: $0.key.event, count: $0.value) }
            .sorted { ($1.count, $0.flow, $0.step ?? "", $0.event) < ($0.count, $1.flow, $1.step ?? "", $1.event) }
    }
}
