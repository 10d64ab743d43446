import FunnelModel

/// Reads what a parsed definition holds when its shape has faults, so that the meaning
/// checks still run on the rest and one pass reports every error. Each list keeps its
/// indices (an element that cannot be read becomes a placeholder), so meaning issues keep
/// their JSON paths; what cannot be read is noted in `gaps`.
struct FlowSalvage {
    private(set) var gaps = FlowGaps()

    /// The definition and its gaps; nil when the document is not an object.
    static func read(_ tree: JSONValue) -> (flow: FlowDefinition, gaps: FlowGaps)? {
        guard case .object(let o) = tree else { return nil }
        var salvage = FlowSalvage()
        let flow = salvage.flow(o)
        return (flow, salvage.gaps)
    }

    private mutating func flow(_ o: [String: JSONValue]) -> FlowDefinition {
        var steps: [FlowDefinition.Step] = []
        if case .array(let items)? = o["steps"] {
            steps = items.enumerated().map { step($0.element, "$.steps[\($0.offset)]") }
        } else {
            gaps.stepIDsUnknown = true
            gaps.collectsUnknown = true
        }
        var lanes: [FlowDefinition.Lane] = []
        // No lanes (a shape fault of its own) would leave every step on no lane.
        if case .array(let items)? = o["lanes"], !items.isEmpty {
            lanes = items.enumerated().map { lane($0.element, $0.offset) }
        } else {
            gaps.laneStepsUnknown = true
        }
        var flags: [FlowDefinition.Flag] = []
        switch o["flags"] {
        case nil: break
        case .array(let items)?: flags = items.enumerated().map { flag($0.element, "$.flags[\($0.offset)]") }
        default: gaps.flagsUnknown = true
        }
        var cohorts: [FlowDefinition.Cohort] = []
        if case .array(let items)? = o["cohorts"] {
            cohorts = items.enumerated().map { cohort($0.element, $0.offset) }
        }
        return FlowDefinition(id: Self.text(o["id"]) ?? "", title: Self.text(o["title"]) ?? "",
                              laneKey: Self.text(o["laneKey"]), lanes: lanes, steps: steps, flags: flags,
                              cohorts: cohorts)
    }

    private mutating func step(_ v: JSONValue, _ path: String) -> FlowDefinition.Step {
        guard case .object(let o) = v, let id = Self.text(o["id"]) else {
            gaps.stepIDsUnknown = true
            gaps.collectsUnknown = true
            return FlowDefinition.Step(id: placeholder(path), kind: .screen)
        }
        var kind = FlowDefinition.StepKind.screen
        if let k = Self.text(o["kind"]).flatMap(FlowDefinition.StepKind.init(rawValue:)) {
            kind = k
        } else {
            gaps.unknownKinds.insert(id)
        }
        var collects: [FlowDefinition.Collected] = []
        switch o["collects"] {
        case nil: break
        case .array(let items)?:
            for item in items {
                guard case .object(let c) = item, let key = Self.text(c["key"]) else {
                    gaps.collectsUnknown = true
                    continue
                }
                collects.append(FlowDefinition.Collected(key: key, values: Self.values(c["values"])))
            }
        default: gaps.collectsUnknown = true
        }
        return FlowDefinition.Step(id: id, kind: kind, collects: collects, when: o["when"]?.stringValue,
                                   flag: o["flag"]?.stringValue, optional: o["optional"]?.boolValue)
    }

    private mutating func lane(_ v: JSONValue, _ index: Int) -> FlowDefinition.Lane {
        let path = "$.lanes[\(index)]"
        guard case .object(let o) = v else {
            gaps.laneStepsUnknown = true
            gaps.unreadableLaneWhen.insert(index)
            gaps.unreadableLaneSteps.insert(index)
            return FlowDefinition.Lane(id: placeholder(path), steps: [])
        }
        if let when = o["when"], when.stringValue == nil { gaps.unreadableLaneWhen.insert(index) }
        var steps: [FlowDefinition.LaneStep] = []
        // A lane without steps (a shape fault of its own) is not also reported as endless.
        if case .array(let items)? = o["steps"], !items.isEmpty {
            for (j, item) in items.enumerated() {
                switch item {
                case .string(let id) where !id.isEmpty:
                    steps.append(FlowDefinition.LaneStep(id: id))
                case .object(let s) where Self.text(s["id"]) != nil:
                    steps.append(FlowDefinition.LaneStep(id: Self.text(s["id"]) ?? "", when: s["when"]?.stringValue,
                                                         flag: s["flag"]?.stringValue))
                default:
                    gaps.laneStepsUnknown = true
                    gaps.unreadableLaneSteps.insert(index)
                    steps.append(FlowDefinition.LaneStep(id: placeholder("\(path).steps[\(j)]")))
                }
            }
        } else {
            gaps.laneStepsUnknown = true
            gaps.unreadableLaneSteps.insert(index)
        }
        return FlowDefinition.Lane(id: Self.text(o["id"]) ?? placeholder(path), when: o["when"]?.stringValue, steps: steps)
    }

    private mutating func flag(_ v: JSONValue, _ path: String) -> FlowDefinition.Flag {
        guard case .object(let o) = v, let id = Self.text(o["id"]) else {
            gaps.flagsUnknown = true
            return FlowDefinition.Flag(id: placeholder(path))
        }
        return FlowDefinition.Flag(id: id)
    }

    private mutating func cohort(_ v: JSONValue, _ index: Int) -> FlowDefinition.Cohort {
        let path = "$.cohorts[\(index)]"
        guard case .object(let o) = v else {
            gaps.unreadableCohortWhere.insert(index)
            return FlowDefinition.Cohort(id: placeholder(path), where: "")
        }
        let condition = o["where"]?.stringValue
        if condition == nil { gaps.unreadableCohortWhere.insert(index) }
        return FlowDefinition.Cohort(id: Self.text(o["id"]) ?? placeholder(path), where: condition ?? "")
    }

    /// An id no definition can hold, unique to the element at `path`.
    private mutating func placeholder(_ path: String) -> String {
        let id = "\u{0}" + path
        gaps.placeholders.insert(id)
        return id
    }

    /// A non-empty string, else nil.
    private static func text(_ v: JSONValue?) -> String? {
        guard case .string(let s)? = v, !s.isEmpty else { return nil }
        return s
    }

    /// The listed values when every one is a string; nil (values not known) otherwise.
    private static func values(_ v: JSONValue?) -> [String]? {
        guard case .array(let items)? = v, !items.isEmpty else { return nil }
        let strings = items.compactMap(\.stringValue)
        return strings.count == items.count ? strings : nil
    }
}
