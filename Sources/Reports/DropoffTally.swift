import FunnelModel
import Projections

/// Counts the journeys of one explanation as they stream from the store: per attribute
/// value, the users compared and how many of them dropped at the step. Memory holds the
/// counters and the ids of the users who dropped there (their last events are read after).
public struct DropoffTally: Sendable {
    let definition: FlowDefinition
    let query: ReportQuery
    public let scope: DropoffScope
    var users = DropoffExplanation.Users(eligible: 0, reached: 0, dropped: 0, droppedNotEligible: 0, inProgress: 0, wentOn: 0)
    /// The users who dropped at the step, eligible or not, in the order met.
    public private(set) var droppedUsers: [String] = []
    /// Counted users with the step before the one they started on (why nobody is eligible).
    var beforeStart = 0
    var counted = 0
    var slots: [Slot]

    /// One attribute: the users compared and those who dropped, per value.
    struct Slot: Sendable {
        var kind: DropoffExplanation.Attribute.Kind
        var key: String?
        var counts: [String: (users: Int, dropped: Int)] = [:]

        mutating func add(_ value: String, dropped: Bool) {
            counts[value, default: (0, 0)].users += 1
            if dropped { counts[value, default: (0, 0)].dropped += 1 }
        }
    }

    /// The value of an answer the user never gave, a version or platform no event named.
    static let notAnswered = "(not answered)"
    static let unknown = "(unknown)"
    /// A user with no prompt outcome on the step (renamed by `noOutcomeValue`).
    static let noOutcome = "(none)"

    /// What having no prompt outcome means on a step, by the outcomes others had there:
    /// `(not prompted)` for a permission step, `(no sign_in_failed)` for a sign-in one.
    static func noOutcomeValue(among values: some Sequence<String>) -> String {
        let others = values.filter { $0 != noOutcome }
        if !others.isEmpty && others.allSatisfy(PromptOutcome.isPermission) { return "(not prompted)" }
        if !others.isEmpty && others.allSatisfy(PromptOutcome.isSignInFailure) { return "(no sign_in_failed)" }
        return noOutcome
    }

    public init(definition: FlowDefinition, query: ReportQuery, scope: DropoffScope) {
        self.definition = definition
        self.query = query
        self.scope = scope
        var slots = scope.answerKeys.map { Slot(kind: .answer, key: $0) }
        slots += scope.flags.map { Slot(kind: .flag, key: $0) }
        slots += [Slot(kind: .appVersion), Slot(kind: .platform)]
        if !scope.shared && scope.lanes.count > 1 { slots.append(Slot(kind: .lane)) }
        slots.append(Slot(kind: .prompt))
        self.slots = slots
    }

    /// Counts a journey when the query selects it and the step's rows count its lane.
    public mutating func add(_ j: Journey) {
        guard j.flow == definition.id, query.selects(j, definition: definition), scope.counts(lane: j.lane) else { return }
        counted += 1
        let state = j.state(asOf: query.asOf, idleSeconds: query.idleSeconds)
        let atStep = j.currentStep == scope.step
        let droppedHere = state == .abandoned && atStep
        if droppedHere {
            users.dropped += 1
            droppedUsers.append(j.userID)
        }
        guard let p = j.pathStep(scope.step), p.eligible else {
            if droppedHere { users.droppedNotEligible += 1 }
            if j.pathStep(scope.step)?.status == .beforeStart { beforeStart += 1 }
            return
        }
        users.eligible += 1
        guard p.reached else {
            if droppedHere { users.droppedNotEligible += 1 }
            return
        }
        users.reached += 1
        if !droppedHere {
            if state == .inProgress && atStep {
                users.inProgress += 1
                return
            }
            users.wentOn += 1
        }
        for i in slots.indices {
            switch slots[i].kind {
            case .answer:
                slots[i].add(slots[i].key.flatMap { j.values[$0]?.textValue } ?? Self.notAnswered, dropped: droppedHere)
            case .flag:
                let name = slots[i].key ?? ""
                let on = j.flags[name].map { $0.boolValue ?? false } ?? scope.flagDefaults[name] ?? false
                slots[i].add(on ? "on" : "off", dropped: droppedHere)
            case .appVersion: slots[i].add(j.appVersion ?? Self.unknown, dropped: droppedHere)
            case .platform: slots[i].add(j.platform ?? Self.unknown, dropped: droppedHere)
            case .lane: slots[i].add(j.lane ?? FunnelReport.undecidedLane, dropped: droppedHere)
            case .prompt:
                let outcomes = j.promptOutcomes[scope.step] ?? []
                if outcomes.isEmpty { slots[i].add(Self.noOutcome, dropped: droppedHere) }
                for o in outcomes { slots[i].add(o, dropped: droppedHere) }
            }
        }
    }

    /// A request no user of the selection is eligible for: why, for the message.
    public var nobodyEligible: RequestError? {
        guard users.eligible == 0 else { return nil }
        let lane = scope.lane.map { " on lane \($0)" } ?? ""
        if counted > 0 && beforeStart == counted {
            return RequestError("nobody is eligible for \(scope.step)\(lane): it comes before the step users start on"
                                + " (the flow's first tracked step), so it has no events")
        }
        return RequestError("nobody in this selection is eligible for \(scope.step)\(lane): of \(counted) users"
                            + " counted, none has it on their expected path after a step they reached")
    }

    /// Every attribute value against the rest of the users compared, p-values adjusted
    /// across all of them, strongest evidence first.
    func attributes() -> [DropoffExplanation.Attribute] {
        let total = users.compared, droppedTotal = users.droppedCompared
        var rows: [DropoffExplanation.Attribute] = []
        for slot in slots {
            // An attribute no compared user has (no prompt on the step) explains nothing.
            if slot.kind == .prompt && slot.counts.keys.allSatisfy({ $0 == Self.noOutcome }) { continue }
            let none = slot.kind == .prompt ? Self.noOutcomeValue(among: slot.counts.keys) : Self.noOutcome
            for (key, c) in slot.counts {
                let value = slot.kind == .prompt && key == Self.noOutcome ? none : key
                let comparison = FunnelReport.comparison(c.dropped, of: c.users, within: droppedTotal, of: total)
                    ?? FunnelReport.Comparison(difference: nil, pValue: nil)
                let interval = Statistics.differenceInterval(c.dropped, of: c.users, against: droppedTotal - c.dropped,
                                                             of: total - c.users)
                rows.append(.init(kind: slot.kind.rawValue, key: slot.key, value: value, users: c.users, dropped: c.dropped,
                                  restUsers: total - c.users, restDropped: droppedTotal - c.dropped, versusRest: comparison,
                                  differenceCI95: interval.map { FunnelReport.Interval(low: $0.low, high: $0.high) }))
            }
        }
        let adjusted = FunnelReport.adjusted(rows.map(\.versusRest))
        for i in rows.indices { rows[i].versusRest = adjusted[i] ?? rows[i].versusRest }
        let kinds = DropoffExplanation.Attribute.Kind.allCases.map(\.rawValue)
        return rows.sorted { a, b in
            let x = a.versusRest, y = b.versusRest
            if (x.pValueAdjusted ?? 2) != (y.pValueAdjusted ?? 2) { return (x.pValueAdjusted ?? 2) < (y.pValueAdjusted ?? 2) }
            if (x.pValue ?? 2) != (y.pValue ?? 2) { return (x.pValue ?? 2) < (y.pValue ?? 2) }
            if abs(x.difference ?? 0) != abs(y.difference ?? 0) { return abs(x.difference ?? 0) > abs(y.difference ?? 0) }
            let ka = kinds.firstIndex(of: a.kind) ?? 0, kb = kinds.firstIndex(of: b.kind) ?? 0
            if ka != kb { return ka < kb }
            return (a.key ?? "", a.value) < (b.key ?? "", b.value)
        }
    }

    /// The explanation, given what the dropped users did last on the step.
    public func explanation(lastEvents: [DropoffExplanation.LastEvent]) -> DropoffExplanation {
        let step = definition.step(scope.step)
        let compared = users.compared, dropped = users.droppedCompared
        return DropoffExplanation(
            flow: definition.id, flowTitle: definition.title, step: scope.step, stepTitle: step?.title,
            stepKind: step?.kind.rawValue ?? "unknown", lane: scope.lane, lanes: scope.lanes, shared: scope.shared,
            cohort: query.cohort?.id,
            filters: query.filters.map(\.text), since: query.since?.description, until: query.until?.description,
            asOf: query.asOf.description, idleSeconds: query.idleSeconds, users: users,
            dropRate: compared == 0 ? nil : Double(dropped) / Double(compared),
            dropRateCI95: Statistics.wilson(successes: dropped, trials: compared).map { .init(low: $0.low, high: $0.high) },
            attributes: attributes(), lastEvents: lastEvents)
    }
}
