/// The expected path: the steps a user should see given their lane, the answers they gave and
/// the flags they had, with the reason for every step left out.
public struct ExpectedPath: Sendable, Hashable {
    public enum Status: Sendable, Hashable {
        /// On the path.
        case shown
        /// Not on the path, and why (`weightGoal = maintain`, `flag trackingStyleQuestion off`).
        case skipped(String)
        /// Depends on something not known yet (`weightGoal not answered yet`).
        case undetermined(String)
    }

    public struct Entry: Sendable, Hashable {
        public var step: String
        public var status: Status
        public init(step: String, status: Status) {
            self.step = step
            self.status = status
        }
        public var isShown: Bool { status == .shown }
    }

    /// The chosen lane, nil while the value that picks it is not known.
    public var lane: String?
    /// Why this lane (`journeyStatus = already_on_glp1`) or why none yet.
    public var laneReason: String
    public var entries: [Entry]

    /// The ids of the steps on the path, in order.
    public var shownSteps: [String] { entries.filter(\.isShown).map(\.step) }

    public func entry(_ step: String) -> Entry? { entries.first { $0.step == step } }
}

extension FlowDefinition {
    /// The lane the context picks and why; nil lane when it cannot be told yet or none matches.
    public func resolveLane(_ ctx: ConditionContext) -> (lane: Lane?, reason: String) {
        if lanes.count == 1, let only = lanes.first, only.when == nil { return (only, "the flow's only lane") }
        var unknown: [Lane] = []
        for lane in lanes {
            guard let text = lane.when else { return (lane, "default lane") }
            guard let cond = try? Condition(parsing: text) else { continue }
            switch cond.evaluate(ctx) {
            case .some(true): return (lane, FlowDefinition.explain(cond, ctx))
            case .none: unknown.append(lane)
            case .some(false): break
            }
        }
        let key = laneKey ?? lanes.compactMap { $0.when.flatMap { try? Condition(parsing: $0) }?.keys.first }.first ?? "lane"
        if !unknown.isEmpty { return (nil, "\(key) not answered yet") }
        let value = ctx.lookup(key)?.textValue ?? "?"
        return (nil, "no lane matches \(key) = \(value)")
    }

    /// The steps a user with this context should see, in order.
    public func expectedPath(_ ctx: ConditionContext) -> ExpectedPath {
        var context = ctx
        for (k, v) in flagDefaults where context.flagDefaults[k] == nil { context.flagDefaults[k] = v }
        let (lane, reason) = resolveLane(context)
        guard let lane else {
            // Only the steps every lane shares are known; the rest waits for the lane.
            var entries = sharedPrefix.map { id in
                ExpectedPath.Entry(step: id, status: status(of: id, laneStep: nil, context))
            }
            let shared = Set(sharedPrefix)
            for id in orderedStepIDs where !shared.contains(id) {
                entries.append(.init(step: id, status: .undetermined(reason)))
            }
            return ExpectedPath(lane: nil, laneReason: reason, entries: entries)
        }
        let entries = lane.steps.map { ls in
            ExpectedPath.Entry(step: ls.id, status: status(of: ls.id, laneStep: ls, context))
        }
        return ExpectedPath(lane: lane.id, laneReason: reason, entries: entries)
    }

    private func status(of id: String, laneStep: LaneStep?, _ ctx: ConditionContext) -> ExpectedPath.Status {
        let step = self.step(id)
        for flag in [step?.flag, laneStep?.flag].compactMap({ $0 }) where !ctx.isFlagOn(flag) {
            return .skipped("flag \(flag) off")
        }
        var unknown: [String] = []
        for text in [step?.when, laneStep?.when].compactMap({ $0 }) {
            guard let cond = try? Condition(parsing: text) else { return .undetermined("condition \"\(text)\" cannot be read") }
            switch cond.evaluate(ctx) {
            case .some(false): return .skipped(FlowDefinition.explain(cond, ctx))
            case .none:
                unknown.append(contentsOf: cond.keys.filter { ctx.lookup($0) == nil })
            case .some(true): break
            }
        }
        if !unknown.isEmpty {
            return .undetermined(unknown.map { "\($0) not answered yet" }.joined(separator: ", "))
        }
        return .shown
    }

    /// The values a condition read, as `key = value` pairs: the reason a step is in or out.
    public static func explain(_ cond: Condition, _ ctx: ConditionContext) -> String {
        var seen = Set<String>()
        var parts: [String] = []
        for key in cond.keys where seen.insert(key).inserted {
            if key.hasPrefix("flag:") {
                parts.append("flag \(key.dropFirst(5)) \(ctx.isFlagOn(String(key.dropFirst(5))) ? "on" : "off")")
            } else {
                parts.append("\(key) = \(ctx.lookup(key)?.textValue ?? "unknown")")
            }
        }
        return parts.joined(separator: ", ")
    }
}

extension FlowDefinition {
    /// Every context key (as `ConditionContext.lookup` names it) that a condition of the flow
    /// reads, the lane key included. The expected path reads the context only through these
    /// keys and the flags.
    public var conditionKeys: Set<String> {
        var texts = lanes.compactMap(\.when) + steps.compactMap(\.when)
        texts += lanes.flatMap { $0.steps.compactMap(\.when) }
        var keys = Set(texts.compactMap { try? Condition(parsing: $0) }.flatMap(\.keys))
        if let laneKey { keys.insert(laneKey) }
        return keys
    }

    /// The part of `ctx` that the expected path can read, given `conditionKeys`: the values,
    /// app version, platform and start day a condition names, and every flag. Two contexts
    /// with the same part have the same expected path.
    public func pathContext(_ ctx: ConditionContext, keys: Set<String>) -> ConditionContext {
        var values: [String: JSONValue] = [:]
        for (k, v) in ctx.values where keys.contains(k) { values[k] = v }
        return ConditionContext(values: values, flags: ctx.flags,
                                appVersion: keys.contains("app_version") ? ctx.appVersion : nil,
                                platform: keys.contains("platform") ? ctx.platform : nil,
                                startDate: keys.contains("start_date") ? ctx.startDate : nil,
                                flagDefaults: ctx.flagDefaults)
    }
}
