import FunnelModel

/// One way a journey departs from its flow definition (docs/drift.md): what a report's drift
/// section counts. Worked out when the journey's facts are saved.
public struct DriftFact: Sendable, Hashable {
    public enum Kind: UInt8, Sendable, Hashable, CaseIterable {
        /// An answer the definition does not list, for a key that decides a lane, a condition
        /// or a cohort: `name` the key, `detail` the value.
        case unlistedValue = 0
        /// A step viewed that the definition does not have: `name` the step.
        case stepNotInFlow = 1
        /// A step of the definition viewed that is not on the user's lane: `name` the step,
        /// `detail` the lane ("" when the lane is undecided and the step on no lane).
        case stepOffLane = 2
        /// An event name outside the event vocabulary: `name` the event.
        case unknownEvent = 3
        /// A flag in `context.flags` the definition does not declare: `name` the flag.
        case undeclaredFlag = 4
        /// Events, but no `onboarding.started`.
        case notStarted = 5
        /// `onboarding.completed` without a view of the lane's terminal step: `name` that
        /// step, `detail` the lane ("" when undecided).
        case completedWithoutTerminal = 6
    }

    public var kind: Kind
    public var name: String
    public var detail: String
    /// When the journey first showed it (microseconds since the epoch).
    public var at: Int64

    public init(kind: Kind, name: String, detail: String = "", at: Int64) {
        self.kind = kind
        self.name = name
        self.detail = detail
        self.at = at
    }

    /// Every way `j` departs from the definition `vocabulary` comes from, in a stable order.
    public static func facts(of j: Journey, vocabulary: FlowVocabulary) -> [DriftFact] {
        facts(of: j, vocabulary: vocabulary, visitCodes: [])
    }

    /// `facts(of:vocabulary:)`, with the step codes of the journey's visits when its fold gave
    /// them (`JourneyCodes.visits`; -1 or none: the step is looked up by its id).
    package static func facts(of j: Journey, vocabulary: FlowVocabulary, visitCodes: [Int32]) -> [DriftFact] {
        var out: [DriftFact] = []
        // The keys with listed values are few; a journey's answers, many.
        for (key, listed) in vocabulary.listedValues {
            guard let value = j.values[key] else { continue }
            let text = value.textValue
            guard !listed.contains(text) else { continue }
            let at = j.driftSeen[DriftKey.value(key, text)] ?? j.firstEventAt
            out.append(DriftFact(kind: .unlistedValue, name: key, detail: text, at: at.micros))
        }
        if out.count > 1 { out.sort { $0.name < $1.name } }
        // The journey's lane by its index (nil: no lane, or one the definition lacks); a
        // repeated lane id names its last lane.
        let laneIndex = j.lane.flatMap { vocabulary.laneIDs.lastIndex(of: $0) }
        // A visit's step name is read only where it has no code or is kept: names are shared
        // by every journey, and a copy is an atomic retain another thread contends. A coded
        // step's place is read where it is (through the buffer), not copied out with its lanes.
        vocabulary.placesByCode.withUnsafeBufferPointer { byCode in
            for i in j.visits.indices {
                let coded = i < visitCodes.count && visitCodes[i] >= 0
                let at = j.visits[i].firstViewedAt.micros
                let fact: (kind: Kind, detail: String)?
                if coded {
                    fact = Self.placeFact(byCode[Int(visitCodes[i])], laneIndex: laneIndex, lane: j.lane)
                } else if let place = vocabulary.stepPlaces[j.visits[i].step] {
                    fact = Self.placeFact(place, laneIndex: laneIndex, lane: j.lane)
                } else {
                    fact = (.stepNotInFlow, "")
                }
                if let fact { out.append(DriftFact(kind: fact.kind, name: j.visits[i].step, detail: fact.detail, at: at)) }
            }
        }
        for (key, time) in j.driftSeen.isEmpty ? [] : j.driftSeen.sorted(by: { $0.key < $1.key }) {
            guard let (kind, parts) = DriftKey.parse(key), let name = parts.first else { continue }
            switch kind {
            case "e": out.append(DriftFact(kind: .unknownEvent, name: name, at: time.micros))
            case "f": out.append(DriftFact(kind: .undeclaredFlag, name: name, at: time.micros))
            default: break
            }
        }
        if j.startedAt == nil {
            out.append(DriftFact(kind: .notStarted, name: "", at: j.firstEventAt.micros))
        }
        if let completed = j.completedAt {
            let terminals = vocabulary.terminals(onLane: j.lane)
            if let first = terminals.first, !terminals.contains(where: { j.visit($0) != nil }) {
                out.append(DriftFact(kind: .completedWithoutTerminal, name: first, detail: j.lane ?? "", at: completed.micros))
            }
        }
        return out
    }

    /// How a visit of a step at `place` departs from the definition, nil when it does not: a
    /// step the definition lacks, or one off the journey's lane (`lane`, at `laneIndex` among
    /// the definition's lanes; with no lane, a step on none).
    private static func placeFact(_ place: borrowing FlowVocabulary.StepPlace, laneIndex: Int?,
                                  lane: String?) -> (kind: Kind, detail: String)? {
        guard place.known else { return (.stepNotInFlow, "") }
        guard let lane else { return place.lanes.isEmpty ? (.stepOffLane, "") : nil }
        if let laneIndex, !place.lanes.contains(laneIndex) { return (.stepOffLane, lane) }
        return nil
    }

    /// What the fact means for the user's figures, in a clause (nil for `notStarted`, which
    /// the replay's verdict already says).
    public func explanation(_ vocabulary: FlowVocabulary) -> String? {
        switch kind {
        case .unlistedValue:
            return "\(name) = \(detail) is not a value the flow lists"
                + (name == vocabulary.laneKey ? ", so no lane is decided (the report's \"no lane decided\" rows)" : "")
        case .stepNotInFlow: return "step \(name) is not in the flow (on no row of the report)"
        case .stepOffLane:
            return detail.isEmpty ? "step \(name) is on no lane" : "step \(name) is not on lane \(detail)"
        case .unknownEvent: return "event \(name) is not an onboarding event (stored, not counted)"
        case .undeclaredFlag: return "flag \(name) is not declared by the flow"
        case .notStarted: return nil
        case .completedWithoutTerminal: return "completed without a view of the terminal step \(name)"
        }
    }
}
