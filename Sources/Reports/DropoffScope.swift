import FunnelModel

/// The step an explanation is about, resolved against its flow definition: which users'
/// rows of the report it sums (the step's lanes), and which answers and flags can explain it.
public struct DropoffScope: Sendable, Hashable {
    public let step: String
    /// `--lane`, or nil for every lane that has the step.
    public let lane: String?
    /// The lanes whose users are counted, in the definition's order.
    public let lanes: [String]
    /// The step is on every lane before they part (or the flow has one lane): the users'
    /// lane is decided after it, so it is no attribute that can explain a drop-off there.
    public let shared: Bool
    /// Whether every user is counted whatever their lane: the step is shared and no
    /// `--lane` narrows it.
    let everyone: Bool
    /// Without `--lane`, users on no lane count for a step after the shared ones too: the
    /// report lists them in a block of their own, where they can drop at the step.
    let undecidedCount: Bool
    /// Answers with listed values collected on steps before this one on its lanes.
    let answerKeys: [String]
    /// The definition's flags and their defaults.
    let flags: [String]
    let flagDefaults: [String: Bool]
    /// Keys collected without a list of values (heights, dates, ids): left out of the last
    /// events' properties, where every user would have a value of their own.
    let freeFormKeys: Set<String>

    /// Resolves `step` (and `lane`) in `definition`; a step or lane it does not have is a
    /// `RequestError` naming the ones it does.
    public init(step: String, lane: String?, definition: FlowDefinition) throws {
        guard definition.step(step) != nil else {
            throw RequestError("flow \(definition.id) has no step \"\(step)\"; steps: "
                               + definition.orderedStepIDs.joined(separator: ", "))
        }
        let having = definition.lanes(of: step)
        guard !having.isEmpty else {
            throw RequestError("step \(step) is on no lane of flow \(definition.id): nobody can be eligible for it")
        }
        let shared = definition.lanes.count == 1 || definition.sharedPrefix.contains(step)
        if let lane {
            if lane == FunnelReport.undecidedLane {
                throw RequestError("--lane \(lane): users whose lane is not decided are eligible for no step after the shared"
                                   + " ones (their path is undetermined); lanes with \(step): \(having.joined(separator: ", "))")
            }
            guard definition.lane(lane) != nil else {
                throw RequestError("--lane \"\(lane)\": flow \(definition.id) has no such lane; lanes: "
                                   + definition.lanes.map(\.id).joined(separator: ", "))
            }
            guard having.contains(lane) else {
                throw RequestError("lane \(lane) of flow \(definition.id) has no step \(step); lanes with it: \(having.joined(separator: ", "))")
            }
        }
        self.step = step
        self.lane = lane
        self.shared = shared
        lanes = lane.map { [$0] } ?? having
        everyone = lane == nil && shared
        undecidedCount = lane == nil && !shared
        var keys: [String] = []
        for l in definition.lanes where lanes.contains(l.id) {
            for ls in l.steps.prefix(while: { $0.id != step }) {
                for c in definition.step(ls.id)?.collects ?? [] where c.values != nil && !keys.contains(c.key) {
                    keys.append(c.key)
                }
            }
        }
        answerKeys = keys
        flags = definition.flags.map(\.id)
        flagDefaults = definition.flagDefaults
        freeFormKeys = DropoffScope.freeFormKeys(definition)
    }

    /// The keys `definition` collects without a list of values.
    static func freeFormKeys(_ definition: FlowDefinition) -> Set<String> {
        Set(definition.steps.flatMap { $0.collects.filter { $0.values == nil }.map(\.key) })
    }

    /// Whether a user on `lane` (nil: none decided) is counted, as the report's rows of
    /// the step count them.
    func counts(lane: String?) -> Bool {
        if everyone { return true }
        guard let lane else { return undecidedCount }
        return lanes.contains(lane)
    }
}
