import FunnelModel
import Journeys
import StoreCore

/// Counts the users of a selection into a `PathsReport`, one user at a time: from their
/// events (`add(_:events:)`) or from their journeys' report facts (`add(_:)`, in shares that
/// are merged in order; then `readLastEvents` reads the abandoned users' last events).
struct PathsTally: JourneyAccumulator {
    let definition: FlowDefinition
    let query: ReportQuery
    /// `--from` and `--to`, when asked.
    let between: (from: String, to: String)?

    private var started = 0
    private var viewed = 0
    private var moved = 0
    private var stepUsers: [String: Int] = [:]
    private var movedOn: [String: Int] = [:]
    private var transitions: [UserPath.Move: (users: Int, moves: Int)] = [:]
    /// Per step last viewed: the users by state, and the abandoned users' last events tallied.
    private var exits: [String: (completed: Int, inProgress: Int, abandoned: Int, last: [DropoffExplanation.Seen: Int])] = [:]
    /// The keys collected without a list of values: left out of the last events.
    private let freeFormKeys: Set<String>
    private var returns: [String: (users: Int, returns: Int, kinds: [PathsReport.ReturnKind: Int])] = [:]
    /// The time between `between`'s steps of each user who viewed both in order (microseconds).
    private var durations: [Int64] = []
    /// Every two steps one after the other on a lane (`PathsReport.adjacentPairs`), and the
    /// seconds between them of each user who viewed both in that order.
    private var pairs: AdjacentPairs
    /// The steps of the facts' slots (`JourneyFacts.slots`).
    private let slotSteps: [String]
    /// The query's cohort as a bit of `JourneyFacts.cohorts` (0: no such cohort); nil without one.
    private let cohortMask: UInt64?
    /// The abandoned users counted from facts whose last event is still to be read: the
    /// step they last viewed and the event's seq.
    private var unreadLastEvents: [(step: String, seq: Int64)] = []
    /// What users counted from facts add up to, by step number (`flushCodes` names them).
    private var codes: Codes
    /// `between`'s steps as `codes` numbers them, once a user has been counted from facts.
    private var betweenCodes: (from: Int, to: Int)?

    init(definition: FlowDefinition, query: ReportQuery, between: (from: String, to: String)?) {
        self.definition = definition
        self.query = query
        self.between = between
        pairs = AdjacentPairs(definition)
        freeFormKeys = DropoffScope.freeFormKeys(definition)
        slotSteps = JourneyFacts.slots(definition)
        codes = Codes(slots: slotSteps)
        cohortMask = query.cohort.map { JourneyFacts.cohortMask($0, in: definition) }
    }

    /// The idle window in microseconds, as `UserPath` compares gaps with it.
    private var idleMicros: Int64 { Int64(query.idleSeconds * 1_000_000) }

    /// Whether `add(_: JourneyFacts)` can count this selection: no `--where` filters, facts
    /// that stand for the definition, an idle window no shorter than the silences they keep.
    var acceptsFacts: Bool {
        query.filters.isEmpty && JourneyFacts.supports(definition) && idleMicros >= JourneyFacts.keptSilenceMicros
    }

    /// Counts one user: their journey (the fold of `events`) and their events (any order).
    mutating func add(_ journey: Journey, events: [RecordedEvent]) {
        guard query.selects(journey, definition: definition) else { return }
        let path = UserPath(journey, events: events, asOf: query.asOf, idleSeconds: query.idleSeconds)
        let keys = freeFormKeys
        count(path, state: journey.state(asOf: query.asOf, idleSeconds: query.idleSeconds)) { exit in
            if let e = path.lastEvent { exit.last[DropoffExplanation.Seen(e, freeFormKeys: keys), default: 0] += 1 }
        }
    }

    /// Counts one user from their journey's report facts as of the query's as-of (see
    /// `acceptsFacts`) when the query selects them.
    mutating func add(_ f: JourneyFacts) {
        guard let startedAt = f.startedAt, query.inWindow(startedAt) else { return }
        if let mask = cohortMask, f.cohorts & mask == 0 { return }
        let state = Journey.state(completedAt: f.completedAt, lastEventAt: f.lastEventAt, asOf: query.asOf.micros,
                                  idleSeconds: query.idleSeconds)
        started += 1
        guard let last = codes.add(f, state: state, idleMicros: idleMicros) else { return }
        viewed += 1
        if f.runSlots.count > 1 { moved += 1 }
        if state == .abandoned, let seq = f.lastSeq { unreadLastEvents.append((codes.names[last], seq)) }
        if let between {
            let ends = betweenCodes ?? (codes.code(between.from), codes.code(between.to))
            betweenCodes = ends
            if let m = codes.micros(from: ends.from, to: ends.to, micros: f.runMicros) { durations.append(m) }
        }
        pairs.add(slots: f.runSlots, micros: f.runMicros, asOf: query.asOf.micros)
    }

    /// Adds what `codes` counted to the named counts, and starts it over.
    private mutating func flushCodes() {
        let counted = codes
        codes = Codes(slots: slotSteps)
        betweenCodes = nil
        counted.flush(into: &self)
    }

    mutating func addCounted(step: String, users: Int, movedOn moved: Int) {
        stepUsers[step, default: 0] += users
        if moved > 0 { movedOn[step, default: 0] += moved }
    }

    mutating func addCounted(exit step: String, completed: Int, inProgress: Int, abandoned: Int) {
        var e = exits[step] ?? (0, 0, 0, [:])
        e.completed += completed
        e.inProgress += inProgress
        e.abandoned += abandoned
        exits[step] = e
    }

    mutating func addCounted(returnsFrom step: String, users: Int, returns n: Int, kinds: [PathsReport.ReturnKind: Int]) {
        var r = returns[step] ?? (0, 0, [:])
        r.users += users
        r.returns += n
        r.kinds.merge(kinds, uniquingKeysWith: +)
        returns[step] = r
    }

    mutating func addCounted(_ move: UserPath.Move, users: Int, moves: Int) {
        var t = transitions[move] ?? (0, 0)
        t.users += users
        t.moves += moves
        transitions[move] = t
    }

    /// Counts a selected user's path in `state`; `abandoned` adds an abandoned user's last
    /// event to their exit.
    private mutating func count(_ path: UserPath, state: Journey.State,
                                abandoned: (inout (completed: Int, inProgress: Int, abandoned: Int,
                                                   last: [DropoffExplanation.Seen: Int])) -> Void) {
        started += 1
        guard let last = path.views.last else { return }
        viewed += 1
        if !path.moves.isEmpty { moved += 1 }
        for step in Set(path.views.map(\.step)) { stepUsers[step, default: 0] += 1 }
        for step in Set(path.moves.map(\.from)) { movedOn[step, default: 0] += 1 }
        var counted = Set<UserPath.Move>()
        for move in path.moves {
            var t = transitions[move] ?? (0, 0)
            t.moves += 1
            if counted.insert(move).inserted { t.users += 1 }
            transitions[move] = t
        }
        var exit = exits[last.step] ?? (0, 0, 0, [:])
        switch state {
        case .completed: exit.completed += 1
        case .inProgress: exit.inProgress += 1
        case .abandoned:
            exit.abandoned += 1
            abandoned(&exit)
        }
        exits[last.step] = exit
        var left = Set<String>()
        for r in path.returns {
            var row = returns[r.left] ?? (0, 0, [:])
            row.returns += 1
            row.kinds[r.kind, default: 0] += 1
            if left.insert(r.left).inserted { row.users += 1 }
            returns[r.left] = row
        }
        if let between, let m = path.micros(from: between.from, to: between.to) { durations.append(m) }
        pairs.add { path.micros(from: $0, to: $1) }
    }

    /// Adds what a later share of the same selection counted.
    mutating func merge(_ later: PathsTally) {
        flushCodes()
        var later = later
        later.flushCodes()
        started += later.started
        viewed += later.viewed
        moved += later.moved
        stepUsers.merge(later.stepUsers, uniquingKeysWith: +)
        movedOn.merge(later.movedOn, uniquingKeysWith: +)
        transitions.merge(later.transitions) { a, b in (a.users + b.users, a.moves + b.moves) }
        exits.merge(later.exits) { a, b in
            (a.completed + b.completed, a.inProgress + b.inProgress, a.abandoned + b.abandoned, a.last.merging(b.last, uniquingKeysWith: +))
        }
        returns.merge(later.returns) { a, b in (a.users + b.users, a.returns + b.returns, a.kinds.merging(b.kinds, uniquingKeysWith: +)) }
        durations += later.durations
        pairs.merge(later.pairs)
        unreadLastEvents += later.unreadLastEvents
    }

    /// Reads the last events of the abandoned users counted from facts from `log` and
    /// tallies them on the steps they left.
    mutating func readLastEvents(from log: any EventLogReading) throws {
        flushCodes()
        guard !unreadLastEvents.isEmpty else { return }
        var bySeq: [Int64: Event] = [:]
        bySeq.reserveCapacity(unreadLastEvents.count)
        for e in try log.events(seqs: unreadLastEvents.map(\.seq)) { bySeq[e.seq] = e.event }
        for (step, seq) in unreadLastEvents {
            guard let e = bySeq[seq] else { throw RequestError("the log holds no event \(seq), the last of a journey: run funnel rebuild") }
            exits[step]?.last[DropoffExplanation.Seen(e, freeFormKeys: freeFormKeys), default: 0] += 1
        }
        unreadLastEvents = []
    }

    func report() -> PathsReport {
        var tally = self
        tally.flushCodes()
        return tally.named()
    }

    /// The report from the named counts.
    private func named() -> PathsReport {
        let order = stepOrder()
        let rank = { (step: String) in order[step] ?? Int.max }
        let byFlowOrder = { (a: String, b: String) in rank(a) != rank(b) ? rank(a) < rank(b) : a < b }
        let known = Set(definition.orderedStepIDs)
        let steps = stepUsers.keys.sorted(by: byFlowOrder).map {
            PathsReport.Step(step: $0, inFlow: known.contains($0), users: stepUsers[$0] ?? 0, movedOn: movedOn[$0] ?? 0)
        }
        let rows = transitions.map { m, t in PathsReport.Transition(from: m.from, to: m.to, kind: m.kind, users: t.users, moves: t.moves) }
            .sorted { a, b in
                if a.from != b.from { return byFlowOrder(a.from, b.from) }
                if a.users != b.users { return a.users > b.users }
                if a.moves != b.moves { return a.moves > b.moves }
                if a.to != b.to { return byFlowOrder(a.to, b.to) }
                return a.kind.rawValue < b.kind.rawValue
            }
        let exitRows = exits.keys.sorted(by: byFlowOrder).compactMap { step -> PathsReport.Exit? in
            guard let e = exits[step] else { return nil }
            return PathsReport.Exit(step: step, users: e.completed + e.inProgress + e.abandoned, completed: e.completed,
                                    inProgress: e.inProgress, abandoned: e.abandoned,
                                    abandonedLastEvents: DropoffExplanation.lastEvents(e.last, among: e.abandoned))
        }
        let returnRows = returns.keys.sorted(by: byFlowOrder).compactMap { step -> PathsReport.Return? in
            guard let r = returns[step] else { return nil }
            var kinds: [String: Int] = [:]
            for kind in PathsReport.ReturnKind.allCases { kinds[kind.rawValue] = r.kinds[kind] ?? 0 }
            return PathsReport.Return(step: step, users: r.users, returns: r.returns, cameBack: kinds)
        }
        return PathsReport(
            selection: ReportSelection(definition: definition, query: query),
            users: .init(started: started, viewed: viewed, moved: moved),
            steps: steps, transitions: rows, exits: exitRows, returns: returnRows,
            timeBetween: between.map { PathsReport.TimeBetween($0.from, $0.to, micros: durations) },
            adjacentPairs: pairs.timesBetween())
    }

    /// The definition's steps by their place in flow order: the first lane's steps, each
    /// other lane's own steps right after the step before them on that lane (GLP-1's
    /// `medication` after `journeyStatus`), then steps on no lane.
    private func stepOrder() -> [String: Int] {
        var merged: [String] = []
        for lane in definition.lanes {
            var after = -1
            for step in lane.steps.map(\.id) {
                if let i = merged.firstIndex(of: step) {
                    after = i
                } else {
                    after += 1
                    merged.insert(step, at: after)
                }
            }
        }
        for step in definition.steps.map(\.id) where !merged.contains(step) { merged.append(step) }
        var order: [String: Int] = [:]
        for (i, step) in merged.enumerated() { order[step] = i }
        return order
    }
}
