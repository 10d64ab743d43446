/// What a flow definition says the logs may contain: its steps, its flags and the values it
/// lists for the answers that decide lanes, conditions and cohorts. Logs that say anything
/// else have drifted from the definition (docs/drift.md). Built once per definition.
public struct FlowVocabulary: Sendable, Hashable {
    /// Every step id of the definition.
    public let knownSteps: Set<String>
    /// Every flag the definition declares.
    public let declaredFlags: Set<String>
    /// For each collected key that a lane, a condition or a cohort reads and that some step
    /// lists values for: those values (`textValue` form).
    public let listedValues: [String: Set<String>]
    /// The key whose answer picks the lane.
    public let laneKey: String?
    /// The terminal steps of each lane, by lane id, in lane order.
    public let laneTerminals: [String: [String]]
    /// Every terminal step of the definition, in flow order.
    public let terminals: [String]
    /// The lane ids, in definition order: a `StepPlace` names lanes by their index here.
    public let laneIDs: [String]
    /// Where each step id of the definition or of a lane is: one lookup a step for all of it.
    public let stepPlaces: [String: StepPlace]
    /// Each step id of the definition by its code: its first index in the definition's steps
    /// (a journey's fold keys its steps by it; `JourneyNames` lists the steps first, in this
    /// order, so a step's code is also its index there).
    public let stepCodes: [String: Int32]
    /// How many codes there are (the definition's steps, repeats included).
    public let stepCodeCount: Int
    /// The place of each step code (`stepPlaces` of the step with that code): a journey's
    /// coded visit finds its place without hashing the step's id.
    public let placesByCode: [StepPlace]

    /// Whether the definition has a step, and the lanes that have it (indexes into `laneIDs`).
    public struct StepPlace: Sendable, Hashable {
        public var known = false
        public var lanes: [Int] = []
    }

    public init(_ definition: FlowDefinition) {
        knownSteps = Set(definition.steps.map(\.id))
        var codes: [String: Int32] = [:]
        for (i, step) in definition.steps.enumerated() where codes[step.id] == nil { codes[step.id] = Int32(i) }
        stepCodes = codes
        stepCodeCount = definition.steps.count
        declaredFlags = Set(definition.flags.map(\.id))
        laneKey = definition.laneKey
        var read = definition.conditionKeys
        for cohort in definition.cohorts {
            if let cond = try? Condition(parsing: cohort.where) { read.formUnion(cond.keys) }
        }
        var listed: [String: Set<String>] = [:]
        for step in definition.steps {
            for c in step.collects where read.contains(c.key) {
                guard let values = c.values else { continue }
                listed[c.key, default: []].formUnion(values)
            }
        }
        listedValues = listed
        var laneTerminals: [String: [String]] = [:]
        let terminalIDs = Set(definition.steps.filter { $0.kind == .terminal }.map(\.id))
        for lane in definition.lanes {
            laneTerminals[lane.id] = lane.steps.map(\.id).filter { terminalIDs.contains($0) }
        }
        laneIDs = definition.lanes.map(\.id)
        var places: [String: StepPlace] = [:]
        for id in knownSteps { places[id, default: StepPlace()].known = true }
        for (i, lane) in definition.lanes.enumerated() {
            for id in Set(lane.steps.map(\.id)) { places[id, default: StepPlace()].lanes.append(i) }
        }
        stepPlaces = places
        placesByCode = definition.steps.map { places[$0.id] ?? StepPlace() }
        self.laneTerminals = laneTerminals
        terminals = definition.orderedStepIDs.filter { terminalIDs.contains($0) }
    }

    /// The terminal steps a user on `lane` (nil: undecided) should end on.
    public func terminals(onLane lane: String?) -> [String] {
        lane.flatMap { laneTerminals[$0] } ?? terminals
    }
}
