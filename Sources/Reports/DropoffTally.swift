import FunnelModel
import Journeys

/// Counts the journeys of one explanation as they stream from the store: per attribute
/// value, the users compared and how many of them dropped at the step. Memory holds the
/// counters and the ids of the users who dropped there (their last events are read after).
public struct DropoffTally: Sendable {
    let definition: FlowDefinition
    let query: ReportQuery
    public let scope: DropoffScope
    /// What the glances this tally counts hold: its step is `request.steps[stepIndex]`.
    let request: JourneyGlance.Request
    let stepIndex: Int
    /// Where each answer of `scope.answerKeys` is in `request.keys`.
    let answerIndexes: [Int]
    var users = DropoffExplanation.Users(eligible: 0, reached: 0, dropped: 0, droppedNotEligible: 0, inProgress: 0, wentOn: 0)
    /// The users who dropped at the step, eligible or not, in the order met.
    public private(set) var dropped: [Dropped] = []

    /// A user who dropped at the step, with the seq of their last event there when their
    /// journey keeps it (`Journey.lastSeqOnCurrentStep`: the step is their current one).
    public struct Dropped: Sendable, Hashable {
        public var user: String
        public var lastSeq: Int64?

        public init(user: String, lastSeq: Int64?) {
            self.user = user
            self.lastSeq = lastSeq
        }
    }
    /// Counted users with the step before the one they started on (why nobody is eligible).
    var beforeStart = 0
    var counted = 0
    var slots: [Slot]

    /// One attribute: the users compared and those who dropped, per value.
    struct Slot: Sendable {
        var kind: DropoffExplanation.Attribute.Kind
        var key: String?
        /// The values met, and per value the users and those who dropped.
        var values: [String] = []
        var counts: [(users: Int, dropped: Int)] = []
        /// Where each value is, once there are too many to look through.
        var index: [String: Int] = [:]

        init(kind: DropoffExplanation.Attribute.Kind, key: String? = nil) {
            self.kind = kind
            self.key = key
        }

        mutating func add(_ value: String, dropped: Bool) {
            let i = place(of: value)
            counts[i].users += 1
            if dropped { counts[i].dropped += 1 }
        }

        /// Adds the counts of the same attribute over other users: values it has not met go
        /// after this one's, in the order the other met them.
        mutating func merge(_ other: Slot) {
            for (value, c) in zip(other.values, other.counts) {
                let i = place(of: value)
                counts[i].users += c.users
                counts[i].dropped += c.dropped
            }
        }

        /// Where the value's counts are (a new value gets a place). An attribute has a few
        /// values: a look through them costs less than hashing.
        private mutating func place(of value: String) -> Int {
            if values.count <= 16, let k = values.firstIndex(of: value) { return k }
            if let k = index[value] { return k }
            let i = values.count
            values.append(value)
            counts.append((0, 0))
            if values.count > 16 {
                if index.isEmpty { for (k, v) in values.enumerated() { index[v] = k } }
                index[value] = i
            }
            return i
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

    /// A tally of `scope`, the `stepIndex`-th step of `request` (which reads the scope's
    /// answers and those the query's conditions name: `request(for:query:)`).
    init(definition: FlowDefinition, query: ReportQuery, scope: DropoffScope, request: JourneyGlance.Request, stepIndex: Int) {
        self.definition = definition
        self.query = query
        self.scope = scope
        self.request = request
        self.stepIndex = stepIndex
        answerIndexes = scope.answerKeys.map { request.keys.firstIndex(of: $0) ?? 0 }
        var slots = scope.answerKeys.map { Slot(kind: .answer, key: $0) }
        slots += scope.flags.map { Slot(kind: .flag, key: $0) }
        slots += [Slot(kind: .appVersion), Slot(kind: .platform)]
        if !scope.shared && scope.lanes.count > 1 { slots.append(Slot(kind: .lane)) }
        slots.append(Slot(kind: .prompt))
        self.slots = slots
    }

    /// What the tallies of `scopes` read of each journey: their steps, the answers they
    /// compare and those the query's cohort and filters name.
    static func request(for scopes: [DropoffScope], query: ReportQuery) -> JourneyGlance.Request {
        var keys: [String] = []
        for key in scopes.flatMap(\.answerKeys) + query.conditionKeys where !keys.contains(key) { keys.append(key) }
        return JourneyGlance.Request(steps: scopes.map(\.step), keys: keys)
    }

    /// Counts a journey when the query selects it and the step's rows count its lane.
    public mutating func add(_ g: JourneyGlance) {
        guard query.selects(g, request: request, flagDefaults: scope.flagDefaults), scope.counts(lane: g.lane) else { return }
        counted += 1
        let state = g.state(asOf: query.asOf, idleSeconds: query.idleSeconds)
        let atStep = g.currentStep == scope.step
        let droppedHere = state == .abandoned && atStep
        if droppedHere {
            users.dropped += 1
            dropped.append(Dropped(user: g.userID, lastSeq: g.lastSeqOnCurrentStep))
        }
        let place = g.places[stepIndex]
        guard let place, place.eligible else {
            if droppedHere { users.droppedNotEligible += 1 }
            if place?.status == .beforeStart { beforeStart += 1 }
            return
        }
        users.eligible += 1
        guard place.reached else {
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
        var answer = 0
        for i in slots.indices {
            switch slots[i].kind {
            case .answer:
                slots[i].add(g.answers[answerIndexes[answer]]?.textValue ?? Self.notAnswered, dropped: droppedHere)
                answer += 1
            case .flag:
                let name = slots[i].key ?? ""
                let on = g.flags[name].map { $0.boolValue ?? false } ?? scope.flagDefaults[name] ?? false
                slots[i].add(on ? "on" : "off", dropped: droppedHere)
            case .appVersion: slots[i].add(g.appVersion ?? Self.unknown, dropped: droppedHere)
            case .platform: slots[i].add(g.platform ?? Self.unknown, dropped: droppedHere)
            case .lane: slots[i].add(g.lane ?? FunnelReport.undecidedLane, dropped: droppedHere)
            case .prompt:
                let outcomes = g.outcomes[stepIndex]
                if outcomes.isEmpty { slots[i].add(Self.noOutcome, dropped: droppedHere) }
                for o in outcomes { slots[i].add(o, dropped: droppedHere) }
            }
        }
    }

    /// Adds the tally of the same scope over other users: what one pass over both sets of
    /// journeys, this one's first, would have counted.
    mutating func merge(_ other: DropoffTally) {
        users.eligible += other.users.eligible
        users.reached += other.users.reached
        users.dropped += other.users.dropped
        users.droppedNotEligible += other.users.droppedNotEligible
        users.inProgress += other.users.inProgress
        users.wentOn += other.users.wentOn
        dropped += other.dropped
        beforeStart += other.beforeStart
        counted += other.counted
        for i in slots.indices { slots[i].merge(other.slots[i]) }
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
            if slot.kind == .prompt && slot.values.allSatisfy({ $0 == Self.noOutcome }) { continue }
            let none = slot.kind == .prompt ? Self.noOutcomeValue(among: slot.values) : Self.noOutcome
            for (key, c) in zip(slot.values, slot.counts) {
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

extension DropoffTally {
    /// How the journeys' glances come: what a request asks of every journey of the flow,
    /// added into the blank tallies given, which come back.
    public typealias Glances = (JourneyGlance.Request, _ blank: Tallies) throws -> Tallies

    /// One tally per scope, filled together: a source may add shares of the journeys into
    /// copies apart and merge them, in share order.
    public struct Tallies: JourneyAccumulator {
        public var tallies: [DropoffTally]

        public mutating func add(_ g: JourneyGlance) {
            for i in tallies.indices { tallies[i].add(g) }
        }

        public mutating func merge(_ later: Tallies) {
            for i in tallies.indices { tallies[i].merge(later.tallies[i]) }
        }
    }

    /// One tally per scope, filled in one pass over the journeys (`glances`).
    public static func tallies(_ scopes: [DropoffScope], definition: FlowDefinition, query: ReportQuery,
                               glances: Glances) rethrows -> [DropoffTally] {
        let request = request(for: scopes, query: query)
        let blank = scopes.indices.map {
            DropoffTally(definition: definition, query: query, scope: scopes[$0], request: request, stepIndex: $0)
        }
        guard !blank.isEmpty else { return [] }
        return try glances(request, Tallies(tallies: blank)).tallies
    }

    /// The glances of every journey of the flow in the source as of the query's as-of.
    static func glances(_ definition: FlowDefinition, _ query: ReportQuery, _ source: any JourneySource) -> Glances {
        { request, blank in
            try source.accumulateGlances(flow: definition.id, definition: definition, asOf: query.asOf, request: request, into: blank)
        }
    }

    /// The explanation, with the last events on the step of the users who dropped there
    /// (`lastEvents`: by user, for the users given, as `EventLogReading.lastEvents(onStep:flow:of:notAfter:)`
    /// gives them).
    public func explanation(lastEvents: ([Dropped]) throws -> [String: RecordedEvent]) rethrows -> DropoffExplanation {
        explanation(lastEvents: DropoffExplanation.lastEvents(of: dropped.map(\.user), scope: scope, last: try lastEvents(dropped)))
    }
}
