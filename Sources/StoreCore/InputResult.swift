import FunnelModel
import LogFiles

/// An unplanned event's (flow, step, event) key, as the summary counts it.
package struct UnplannedKey: Hashable, Sendable {
    package var flow: String
    package var step: String?
    package var event: String
}

/// An input's line counts. Invariant: `lines == accepted + duplicates + conflicts + quarantined`.
package struct InputCounts: Sendable {
    package var lines = 0, accepted = 0, duplicates = 0, conflicts = 0, quarantined = 0, unplanned = 0

    package init(lines: Int = 0, accepted: Int = 0, duplicates: Int = 0, conflicts: Int = 0, quarantined: Int = 0,
                 unplanned: Int = 0) {
        self.lines = lines
        self.accepted = accepted
        self.duplicates = duplicates
        self.conflicts = conflicts
        self.quarantined = quarantined
        self.unplanned = unplanned
    }

    package static func + (a: InputCounts, b: InputCounts) -> InputCounts {
        InputCounts(lines: a.lines + b.lines, accepted: a.accepted + b.accepted, duplicates: a.duplicates + b.duplicates,
                    conflicts: a.conflicts + b.conflicts, quarantined: a.quarantined + b.quarantined,
                    unplanned: a.unplanned + b.unplanned)
    }
}

/// What a store's writer made of one input, as the run's summary adds it up.
package struct InputResult: Sendable {
    package var counts = InputCounts()
    /// Set when this run read the input on from where an earlier one stopped.
    package var resumed: IngestSummary.Resumed?
    package var quarantinedBy: [Rejection.Code: Int] = [:]
    package var unplanned: [UnplannedKey: Int] = [:]
    package var failure: IngestSummary.Failure?

    package init() {}
}

/// What a writer knows about one of an input's (flow, step, event) keys.
package struct IngestKey: Sendable {
    package var flow: String
    package var step: String?
    package var rawName: String
    package var normalized: String
    package var planned: Bool
    package var accepted = 0
    package var firstTs = Int64.max
    package var lastTs = Int64.min

    /// Whether an event is part of the flows' plan: a v1 name, a defined flow, and (when it
    /// names one) a step of that flow. Without definitions, only the name is checked.
    package static func isPlanned(name: String, flow: String, step: String?, flows: [String: Set<String>]) -> Bool {
        guard EventName(rawValue: name) != nil else { return false }
        if flows.isEmpty { return true }
        guard let steps = flows[flow] else { return false }
        if let step { return steps.contains(step) }
        return true
    }
}
