import FunnelModel
import Journeys

/// Builds a report from journeys fed one at a time: memory holds counters (and the time
/// figures percentiles need), never the journeys, so a report over any number of users
/// streams from the store. `ReportBuilder.report` is this over an array.
public struct ReportAccumulator: JourneyAccumulator {
    public typealias Element = JourneyFacts

    let builder: ReportBuilder
    let query: ReportQuery
    /// The query's breakdown (`ReportQuery.dimensions`), worked out once.
    let dimensions: [ReportQuery.Dimension]
    let layout: Layout
    var all: Figures
    /// Per group, its value under each dimension of the query (one or two).
    var groups: [[String]: Figures] = [:]
    /// Group keys in first-seen order (`groupOrder` sorts them).
    var seen: [[String]] = []
    var scratch: Facts
    /// The query's cohort as a bit of `JourneyFacts.cohorts` (0 when the definition has no
    /// such cohort, so no journey is in it); nil without a cohort.
    let cohortMask: UInt64?
    /// What the definition says the logs may contain, and the drift found against it.
    let vocabulary: FlowVocabulary
    var drift = DriftTally()
    /// The answers the cohort and the `--where` filters read: an unlisted one is why a user
    /// is left out.
    let filterKeys: Set<String>
    /// The time between steps one after the other on a lane, over every selected user.
    var pairs: AdjacentPairs

    public init(builder: ReportBuilder, query: ReportQuery) {
        self.builder = builder
        self.query = query
        dimensions = query.dimensions
        vocabulary = FlowVocabulary(builder.definition)
        var keys = Set(query.filters.flatMap { $0.condition.keys })
        if let cohort = query.cohort, let cond = try? Condition(parsing: cohort.where) { keys.formUnion(cond.keys) }
        filterKeys = keys
        pairs = AdjacentPairs(builder.definition)
        layout = Layout(builder.definition)
        all = Figures(layout)
        scratch = Facts(width: layout.slot.count)
        cohortMask = query.cohort.map { JourneyFacts.cohortMask($0, in: builder.definition) }
    }

    /// Whether `add(_: JourneyFacts)` can answer this query (no ad hoc filters; a flag
    /// breakdown only on a flag of the definition).
    public var acceptsFacts: Bool {
        guard query.filters.isEmpty, JourneyFacts.supports(builder.definition) else { return false }
        for by in query.dimensions {
            if case .flag(let name) = by, !builder.definition.flags.contains(where: { $0.id == name }) { return false }
        }
        return true
    }

    /// Counts a journey given by its report facts (see `acceptsFacts`) when the query selects it.
    public mutating func add(_ f: JourneyFacts) {
        guard let started = f.startedAt else {
            // Not started: in no figure, but its drift counts when it falls in the selection.
            if !f.drift.isEmpty, query.inWindow(f.firstEventAt), cohortMask.map({ f.cohorts & $0 != 0 }) ?? true {
                drift.add(f.drift, appVersion: f.appVersion)
            }
            return
        }
        guard query.inWindow(started) else { return }
        if let mask = cohortMask, f.cohorts & mask == 0 {
            if !f.drift.isEmpty { drift.addLeftOut(f.drift, appVersion: f.appVersion, keys: filterKeys) }
            return
        }
        if !f.drift.isEmpty { drift.add(f.drift, appVersion: f.appVersion) }
        scratch.reset()
        scratch.lane = f.lane
        scratch.state = Journey.state(completedAt: f.completedAt, lastEventAt: f.lastEventAt, asOf: query.asOf.micros,
                                      idleSeconds: query.idleSeconds)
        if let s = f.startedAt, let c = f.completedAt { scratch.secondsToComplete = Double(c - s) / 1_000_000 }
        let width = min(f.bits.count, scratch.reached.count)
        f.bits.withUnsafeBufferPointer { bits in
            f.seconds.withUnsafeBufferPointer { seconds in
                scratch.reached.withUnsafeMutableBufferPointer { reached in
                    scratch.seconds.withUnsafeMutableBufferPointer { toSeconds in
                        scratch.path.withUnsafeMutableBufferPointer { path in
                            for k in 0..<width {
                                let b = bits[k]
                                reached[k] = b & 1 != 0
                                toSeconds[k] = seconds[k]
                                path[k] = b >> 1
                            }
                        }
                    }
                }
            }
        }
        scratch.current = f.current
        all.add(scratch, layout)
        pairs.add(slots: f.runSlots, micros: f.runMicros, asOf: query.asOf.micros)
        guard !dimensions.isEmpty else { return }
        addToGroups(dimensions.map { groupKeys(f, by: $0) })
    }

    /// Adds the counts of another share of the same query's journeys, read after this
    /// one's: the same figures as one accumulator that had counted both in that order.
    public mutating func merge(_ other: ReportAccumulator) {
        all.merge(other.all)
        for key in other.seen {
            guard let figures = other.groups[key] else { continue }
            if groups[key] == nil { seen.append(key) }
            groups[key, default: Figures(layout)].merge(figures)
        }
        drift.merge(other.drift)
        pairs.merge(other.pairs)
    }

    /// Counts a journey when the query selects it (journeys of other flows are ignored).
    public mutating func add(_ j: Journey) {
        let definition = builder.definition
        guard j.flow == definition.id else { return }
        guard query.selects(j, definition: definition) else {
            addDrift(ofUnselected: j)
            return
        }
        let facts = DriftFact.facts(of: j, vocabulary: vocabulary)
        if !facts.isEmpty { drift.add(facts, appVersion: j.appVersion) }
        layout.facts(of: j, asOf: query.asOf, idleSeconds: query.idleSeconds, into: &scratch)
        all.add(scratch, layout)
        pairs.add(slots: j.viewRuns.map { layout.slot[$0.step] ?? -1 }, micros: j.viewRuns.map(\.at.micros),
                  asOf: query.asOf.micros)
        guard !dimensions.isEmpty else { return }
        addToGroups(dimensions.map { groupKeys(j, by: $0) })
    }

    /// The drift of a journey the query does not select: counted when it never started but
    /// falls in the selection, or as left out when only the cohort or a filter excluded it.
    mutating func addDrift(ofUnselected j: Journey) {
        let definition = builder.definition
        guard let started = j.startedAt else {
            guard query.inWindow(j.firstEventAt.micros), query.passesFilters(j, definition: definition) else { return }
            let facts = DriftFact.facts(of: j, vocabulary: vocabulary)
            if !facts.isEmpty { drift.add(facts, appVersion: j.appVersion) }
            return
        }
        guard query.inWindow(started.micros) else { return }
        let facts = DriftFact.facts(of: j, vocabulary: vocabulary)
        if !facts.isEmpty { drift.addLeftOut(facts, appVersion: j.appVersion, keys: filterKeys) }
    }

    /// The keys of the groups a journey belongs to under `by` (ReportQuery.Dimension).
    func groupKeys(_ j: Journey, by: ReportQuery.Dimension) -> [String] {
        let definition = builder.definition
        switch by {
        case .cohort:
            let ctx = j.conditionContext(flagDefaults: definition.flagDefaults)
            let keys = definition.cohorts.filter { c in
                (try? Condition(parsing: c.where))?.evaluate(ctx) == true
            }.map(\.id)
            return keys.isEmpty ? ["(none)"] : keys
        case .lane: return [j.lane ?? "(undecided)"]
        case .appVersion: return [j.appVersion ?? "(unknown)"]
        case .platform: return [j.platform ?? "(unknown)"]
        case .flag(let name):
            return [j.conditionContext(flagDefaults: definition.flagDefaults).isFlagOn(name) ? "on" : "off"]
        case .day, .week: return [by.bucket(j.startedAt ?? j.firstEventAt) ?? "?"]
        }
    }

    /// A dimension's values in their stable order: defined ones first (even when empty), then
    /// the others `seen` holds.
    func valueOrder(_ by: ReportQuery.Dimension, seen: [String]) -> [String] {
        let definition = builder.definition
        switch by {
        case .cohort:
            return definition.cohorts.map(\.id) + (seen.contains("(none)") ? ["(none)"] : [])
        case .lane:
            return definition.lanes.map(\.id) + (seen.contains("(undecided)") ? ["(undecided)"] : [])
        case .appVersion: return VersionOrder.sorted(seen)
        case .platform: return seen.sorted()
        case .flag: return ["on", "off"]
        case .day, .week: return ReportAccumulator.everyBucket(seen, by: by)
        }
    }

    public func report() -> FunnelReport {
        // Users on no lane get a block of their own when the selection has any.
        let showUndecided = layout.undecidedBlock.map { all.members[$0] > 0 } ?? false
        var report = all.report(builder.definition, layout, query: query, showUndecided: showUndecided)
        report.drift = drift.findings(builder.definition, vocabulary: vocabulary)
        report.adjacentPairs = pairs.timesBetween()
        if !dimensions.isEmpty {
            report.byDimensions = dimensions.map(\.description)
            report.by = FunnelReport.byText(dimensions.map(\.description))
            report.groups = groupOrder().map { key in
                FunnelReport.Group(values: Array(zip(dimensions.map(\.description), key)), report: (groups[key] ?? Figures(layout))
                    .report(builder.definition, layout, query: query, showUndecided: showUndecided))
            }
            report.compareGroups()
            report.markSettled(by: dimensions, asOf: query.asOf, idleSeconds: query.idleSeconds)
        }
        return report
    }

    /// The step table's shape: the steps every lane shares once (lane nil, all users), then
    /// each lane's own steps (the users on that lane). Every lane step has a slot.
    struct Layout {
        /// A block's heading and rows; what `Figures.add` counts per journey is in the flat
        /// arrays below.
        struct Block {
            var lane: String?
            var steps: [FlowDefinition.LaneStep]
        }
        var slot: [String: Int] = [:]
        var blocks: [Block] = []
        var lanes: [String] = []
        /// The blocks' steps as one run of cells: block b's cells are
        /// `cellStart[b]..<cellStart[b + 1]`, cell j counts slot `cellSlot[j]` (-1: none).
        /// A lane block counts the journeys on lane `blockMember[b]` (`everyone`: all; -1:
        /// those on no lane), and the ones that reached slot `blockPrevious[b]` before it
        /// (-1: none).
        var cellStart: [Int] = [0]
        var cellSlot: [Int] = []
        var blockMember: [Int] = []
        var blockPrevious: [Int] = []
        /// The block of the users whose lane is undecided, if the flow has lanes to decide.
        var undecidedBlock: Int?

        /// `blockMember` of a block every journey is counted in.
        static let everyone = Int.min

        init(_ definition: FlowDefinition) {
            lanes = definition.lanes.map(\.id)
            for lane in definition.lanes {
                for ls in lane.steps where slot[ls.id] == nil { slot[ls.id] = slot.count }
            }
            func add(lane: String?, _ steps: [FlowDefinition.LaneStep], member: Int, previousSlot: Int?) {
                blocks.append(Block(lane: lane, steps: steps))
                cellSlot += steps.map { slot[$0.id] ?? -1 }
                cellStart.append(cellSlot.count)
                blockMember.append(member)
                blockPrevious.append(previousSlot ?? -1)
            }
            if definition.lanes.count == 1, let only = definition.lanes.first {
                add(lane: only.id, only.steps, member: Layout.everyone, previousSlot: nil)
            } else {
                let shared = definition.sharedPrefix
                if let first = definition.lanes.first, !shared.isEmpty {
                    add(lane: nil, Array(first.steps.prefix(shared.count)), member: Layout.everyone, previousSlot: nil)
                }
                let previous = shared.last.flatMap { slot[$0] }
                for (index, lane) in definition.lanes.enumerated() {
                    add(lane: lane.id, Array(lane.steps.dropFirst(shared.count)), member: index, previousSlot: previous)
                }
                // Users on no lane: every lane step after the shared ones, so that each step's
                // users add up over the blocks.
                let sharedSet = Set(shared)
                var seen = Set<String>()
                var rest: [FlowDefinition.LaneStep] = []
                for lane in definition.lanes {
                    for ls in lane.steps where !sharedSet.contains(ls.id) && seen.insert(ls.id).inserted {
                        rest.append(FlowDefinition.LaneStep(id: ls.id))
                    }
                }
                undecidedBlock = blocks.count
                add(lane: FunnelReport.undecidedLane, rest, member: -1, previousSlot: previous)
            }
        }

        /// What the step table needs of one journey, by slot.
        func facts(of j: Journey, asOf: Timestamp, idleSeconds: Double, into f: inout Facts) {
            f.reset()
            f.lane = j.lane.flatMap { l in lanes.firstIndex(of: l) } ?? -1
            f.state = j.state(asOf: asOf, idleSeconds: idleSeconds)
            f.secondsToComplete = j.secondsToComplete
            for v in j.visits {
                guard let k = slot[v.step], !f.reached[k] else { continue }
                f.reached[k] = true
                if let s = v.secondsOnStep { f.seconds[k] = s }
            }
            for p in j.path {
                guard let k = slot[p.step], f.path[k] == 0 else { continue }
                var bits: UInt8 = 1
                if p.eligible { bits |= 2 }
                if p.reached { bits |= 4 }
                if p.status == .skipped { bits |= 8 }
                if p.status == .beforeStart { bits |= 16 }
                f.path[k] = bits
            }
            if let c = j.currentStep, let k = slot[c] { f.current = k }
        }
    }

    struct Facts {
        /// Index of the lane in the definition, -1 when none.
        var lane = -1
        var state = Journey.State.inProgress
        var secondsToComplete: Double?
        var reached: [Bool]
        var seconds: [Double]
        /// 1 on the path, 2 eligible, 4 reached, 8 skipped, 16 before start.
        var path: [UInt8]
        var current = -1

        init(width: Int) {
            reached = [Bool](repeating: false, count: width)
            seconds = [Double](repeating: .nan, count: width)
            path = [UInt8](repeating: 0, count: width)
        }

        mutating func reset() {
            lane = -1
            state = .inProgress
            secondsToComplete = nil
            reached.withUnsafeMutableBufferPointer { $0.update(repeating: false) }
            seconds.withUnsafeMutableBufferPointer { $0.update(repeating: .nan) }
            path.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            current = -1
        }
    }

    /// Counters for one set of users.
    struct Figures {
        struct Step {
            var reached = 0, eligible = 0, eligibleReached = 0, skipped = 0, dropped = 0, before = 0
            var dwell: [Double] = []
        }
        var completed = 0, inProgress = 0, abandoned = 0, started = 0
        var durations: [Double] = []
        var members: [Int]
        var previousReached: [Int]
        /// One per cell of the layout (a block's step).
        var cells: [Step]

        init(_ layout: Layout) {
            members = [Int](repeating: 0, count: layout.blocks.count)
            previousReached = [Int](repeating: 0, count: layout.blocks.count)
            cells = [Step](repeating: Step(), count: layout.cellSlot.count)
        }

        mutating func add(_ f: Facts, _ layout: Layout) {
            started += 1
            switch f.state {
            case .completed:
                completed += 1
                if let d = f.secondsToComplete { durations.append(d) }
            case .inProgress: inProgress += 1
            case .abandoned: abandoned += 1
            }
            // Flat loops over the layout's cells, through buffer pointers: one uniqueness
            // check per journey, not one per counter.
            let dropAt = f.state == .abandoned ? f.current : -2
            let cellSlot = layout.cellSlot, cellStart = layout.cellStart
            let blockMember = layout.blockMember, blockPrevious = layout.blockPrevious
            f.reached.withUnsafeBufferPointer { reached in
                f.seconds.withUnsafeBufferPointer { seconds in
                    f.path.withUnsafeBufferPointer { path in
                        cells.withUnsafeMutableBufferPointer { cells in
                            for b in 0..<blockMember.count {
                                let member = blockMember[b]
                                if member != Layout.everyone && f.lane != member { continue }
                                members[b] += 1
                                let p = blockPrevious[b]
                                if p >= 0 && reached[p] { previousReached[b] += 1 }
                                for j in cellStart[b]..<cellStart[b + 1] {
                                    let k = cellSlot[j]
                                    if k < 0 { continue }
                                    if reached[k] {
                                        cells[j].reached += 1
                                        if !seconds[k].isNaN { cells[j].dwell.append(seconds[k]) }
                                    }
                                    let bits = path[k]
                                    if bits != 0 {
                                        if bits & 2 != 0 {
                                            cells[j].eligible += 1
                                            if bits & 4 != 0 { cells[j].eligibleReached += 1 }
                                        }
                                        if bits & 8 != 0 { cells[j].skipped += 1 }
                                        if bits & 16 != 0 { cells[j].before += 1 }
                                    }
                                    if k == dropAt { cells[j].dropped += 1 }
                                }
                            }
                        }
                    }
                }
            }
        }

        /// Adds the counts of `other` (of the same layout) after this one's.
        mutating func merge(_ other: Figures) {
            completed += other.completed
            inProgress += other.inProgress
            abandoned += other.abandoned
            started += other.started
            durations += other.durations
            for b in members.indices {
                members[b] += other.members[b]
                previousReached[b] += other.previousReached[b]
            }
            for j in cells.indices {
                let o = other.cells[j]
                cells[j].reached += o.reached
                cells[j].eligible += o.eligible
                cells[j].eligibleReached += o.eligibleReached
                cells[j].skipped += o.skipped
                cells[j].dropped += o.dropped
                cells[j].before += o.before
                cells[j].dwell += o.dwell
            }
        }

        /// The started users of each lane block (the shared block is everyone's).
        func laneUsers(_ layout: Layout, showUndecided: Bool) -> [FunnelReport.LaneUsers] {
            layout.blocks.indices.compactMap { b in
                guard let lane = layout.blocks[b].lane, showUndecided || b != layout.undecidedBlock else { return nil }
                return FunnelReport.LaneUsers(lane: lane, users: members[b])
            }
        }

        /// The step table; the block of users on no lane only with `showUndecided`.
        func rows(_ definition: FlowDefinition, _ layout: Layout, showUndecided: Bool) -> [FunnelReport.StepRow] {
            var rows: [FunnelReport.StepRow] = []
            for (b, block) in layout.blocks.enumerated() where showUndecided || b != layout.undecidedBlock {
                var previous: Int? = layout.blockPrevious[b] >= 0 ? previousReached[b] : nil
                for (i, ls) in block.steps.enumerated() {
                    let def = definition.step(ls.id)
                    let c = cells[layout.cellStart[b] + i]
                    let conditions = [def?.when, def?.flag.map { "flag:\($0)" }, ls.when, ls.flag.map { "flag:\($0)" }].compactMap { $0 }
                    rows.append(.init(
                        step: ls.id, lane: block.lane,
                        kind: def?.kind.rawValue ?? "unknown", title: def?.title,
                        condition: conditions.isEmpty ? nil : conditions.joined(separator: " and "),
                        reached: c.reached, eligible: c.eligible, eligibleReached: c.eligibleReached, skipped: c.skipped,
                        dropped: c.dropped,
                        conversionFromPrevious: previous.flatMap { $0 == 0 ? nil : Double(c.reached) / Double($0) },
                        conversionFromEligible: c.eligible == 0 ? nil : Double(c.eligibleReached) / Double(c.eligible),
                        medianSecondsOnStep: Statistics.percentile(unsorted: c.dwell, 0.5),
                        tracked: !(c.reached == 0 && c.before > 0 && c.before == members[b])))
                    // The next step converts from the last step every user of the lane is shown:
                    // a step behind a condition or flag is no baseline for the ones after it.
                    if conditions.isEmpty { previous = c.reached }
                }
            }
            return rows
        }

        func report(_ definition: FlowDefinition, _ layout: Layout, query: ReportQuery, showUndecided: Bool) -> FunnelReport {
            let durations = self.durations.sorted()
            let ci = Statistics.wilson(successes: completed, trials: started)
            let rows = self.rows(definition, layout, showUndecided: showUndecided)
            let top = rows.filter { $0.dropped > 0 }
                .sorted { $0.dropped != $1.dropped ? $0.dropped > $1.dropped : ($0.step, $0.lane ?? "") < ($1.step, $1.lane ?? "") }
                .prefix(5)
                .map { FunnelReport.Dropoff(step: $0.step, lane: $0.lane, dropped: $0.dropped,
                                            shareOfAbandoned: abandoned == 0 ? 0 : Double($0.dropped) / Double(abandoned)) }
            return FunnelReport(
                flow: definition.id, flowTitle: definition.title, cohort: query.cohort?.id,
                filters: query.filters.map(\.text), since: query.since?.description, until: query.until?.description,
                asOf: query.asOf.description, idleSeconds: query.idleSeconds,
                users: .init(started: started, completed: completed, inProgress: inProgress, abandoned: abandoned),
                completionRate: started == 0 ? nil : Double(completed) / Double(started),
                completionRateCI95: ci.map { .init(low: $0.low, high: $0.high) },
                timeToCompleteSeconds: .init(
                    count: durations.count,
                    p50: Statistics.percentile(sorted: durations, 0.50), p75: Statistics.percentile(sorted: durations, 0.75),
                    p90: Statistics.percentile(sorted: durations, 0.90), p95: Statistics.percentile(sorted: durations, 0.95),
                    mean: Statistics.mean(durations)),
                timeToCompleteHistogram: Statistics.histogram(durations).map { .init(fromSeconds: $0.from, toSeconds: $0.to, users: $0.count) },
                steps: rows, topDropoffs: Array(top), by: nil, groups: nil, drift: nil,
                lanes: laneUsers(layout, showUndecided: showUndecided))
        }
    }
}
