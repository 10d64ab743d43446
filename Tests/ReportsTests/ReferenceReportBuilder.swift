import Foundation
import FunnelModel
import Projections
@testable import Reports
import Journeys

/// The report as ReportBuilder computed it over arrays of journeys before reports streamed
/// (commit 5d68fcb): the oracle ReportAccumulatorTests compare the streaming report with.
extension ReportBuilder {
    /// The report over `journeys` (every journey of the flow; the query selects).
    func referenceReport(_ journeys: [Journey], query: ReportQuery) -> FunnelReport {
        let selected = journeys.filter { $0.flow == definition.id && query.selects($0, definition: definition) }
        // Users on no lane get their block when the selection has any (flows with lanes to decide).
        let undecided = definition.lanes.count > 1 && selected.contains { $0.lane == nil }
        var report = referenceFigures(selected, query: query, undecided: undecided)
        report.drift = referenceDrift(journeys.filter { $0.flow == definition.id }, query: query)
        report.adjacentPairs = referencePairs(selected, query: query)
        let dimensions = query.dimensions
        if !dimensions.isEmpty {
            let names = dimensions.map(\.description)
            report.by = names.joined(separator: ",")
            report.byDimensions = names
            let members = referenceMembers(selected, dimensions)
            report.groups = members.map { values, users in
                FunnelReport.Group(value: values.joined(separator: " · "), values: Dictionary(uniqueKeysWithValues: zip(names, values)),
                                   report: referenceFigures(users, query: query, undecided: undecided))
            }
            referenceComparisons(&report, selected, members: members, query: query)
            if let t = dimensions.firstIndex(where: { $0 == .day || $0 == .week }), var groups = report.groups {
                let by = dimensions[t]
                let horizon = Date(timeIntervalSince1970: query.asOf.seconds - query.idleSeconds)
                for i in groups.indices {
                    guard let start = referenceDay.date(from: members[i].0[t]),
                          let end = referenceCalendar.date(byAdding: by == .week ? .weekOfYear : .day, value: 1, to: start) else { continue }
                    groups[i].settled = end <= horizon
                }
                report.groups = groups
            }
        }
        return report
    }

    /// Each group against the rest, counted from the users not in it (not by subtraction).
    func referenceComparisons(_ report: inout FunnelReport, _ selected: [Journey], members: [([String], [Journey])], query: ReportQuery) {
        guard var groups = report.groups else { return }
        let undecided = definition.lanes.count > 1 && selected.contains { $0.lane == nil }
        let rests = members.map { _, users in
            let inside = Set(users.map(\.userID))
            return referenceFigures(selected.filter { !inside.contains($0.userID) }, query: query, undecided: undecided)
        }
        func compare(_ x: Int, _ n: Int, _ rx: Int, _ rn: Int) -> FunnelReport.Comparison {
            FunnelReport.Comparison(difference: n > 0 && rn > 0 ? Double(x) / Double(n) - Double(rx) / Double(rn) : nil,
                                    pValue: Statistics.twoProportionPValue(x, of: n, against: rx, of: rn))
        }
        func adjust(_ cs: [FunnelReport.Comparison]) -> [FunnelReport.Comparison] {
            let adjusted = Statistics.benjaminiHochberg(cs.map(\.pValue))
            return cs.indices.map { var c = cs[$0]; c.pValueAdjusted = adjusted[$0]; return c }
        }
        let completion = adjust(groups.indices.map { i in
            compare(groups[i].report.users.completed, groups[i].report.users.started, rests[i].users.completed, rests[i].users.started)
        })
        for i in groups.indices { groups[i].versusRest = completion[i] }
        for k in report.steps.indices {
            let byStep = adjust(groups.indices.map { i in
                let r = groups[i].report.steps[k], rest = rests[i].steps[k]
                return compare(r.eligibleReached, r.eligible, rest.eligibleReached, rest.eligible)
            })
            for i in groups.indices { groups[i].report.steps[k].versusRest = byStep[i] }
        }
        report.groups = groups
    }

    /// The groups of one dimension (every value `referenceGroups` gives), or of two: the
    /// pairs of values whose users overlap, the first dimension's order outermost.
    func referenceMembers(_ journeys: [Journey], _ dimensions: [ReportQuery.Dimension]) -> [([String], [Journey])] {
        guard let first = dimensions.first else { return [] }
        let outer = referenceGroups(journeys, by: first)
        guard dimensions.count == 2 else { return outer.map { ([$0.0], $0.1) } }
        let inner = referenceGroups(journeys, by: dimensions[1])
        var out: [([String], [Journey])] = []
        for (a, aUsers) in outer {
            for (b, bUsers) in inner {
                let ids = Set(bUsers.map(\.userID))
                let both = aUsers.filter { ids.contains($0.userID) }
                if !both.isEmpty { out.append(([a, b], both)) }
            }
        }
        return out
    }

    /// The values of a dimension and the users under each, in a stable order.
    func referenceGroups(_ journeys: [Journey], by: ReportQuery.Dimension) -> [(String, [Journey])] {
        var buckets: [String: [Journey]] = [:]
        var order: [String] = []
        func add(_ key: String, _ j: Journey) {
            if buckets[key] == nil { order.append(key) }
            buckets[key, default: []].append(j)
        }
        switch by {
        case .cohort:
            for c in definition.cohorts { order.append(c.id); buckets[c.id] = [] }
            for j in journeys {
                let ctx = j.conditionContext(flagDefaults: definition.flagDefaults)
                var any = false
                for c in definition.cohorts {
                    if let cond = try? Condition(parsing: c.where), cond.evaluate(ctx) == true {
                        buckets[c.id, default: []].append(j)
                        any = true
                    }
                }
                if !any { add("(none)", j) }
            }
            return order.map { ($0, buckets[$0] ?? []) }
        case .lane:
            for l in definition.lanes { order.append(l.id); buckets[l.id] = [] }
            for j in journeys { add(j.lane ?? "(undecided)", j) }
            return order.map { ($0, buckets[$0] ?? []) }
        case .platform:
            for j in journeys { add(j.platform ?? "(unknown)", j) }
            return order.sorted().map { ($0, buckets[$0] ?? []) }
        case .appVersion:
            for j in journeys { add(j.appVersion ?? "(unknown)", j) }
            return order.sorted { Condition.compareVersions($0, $1) < 0 }.map { ($0, buckets[$0] ?? []) }
        case .flag(let name):
            buckets["on"] = []
            buckets["off"] = []
            for j in journeys {
                let on = j.conditionContext(flagDefaults: definition.flagDefaults).isFlagOn(name)
                buckets[on ? "on" : "off", default: []].append(j)
            }
            return [("on", buckets["on"] ?? []), ("off", buckets["off"] ?? [])]
        case .day, .week:
            // Through Foundation's ISO 8601 calendar in UTC, every bucket from the first to the last.
            let week = by == .week
            for j in journeys {
                let date = Date(timeIntervalSince1970: (j.startedAt ?? j.firstEventAt).seconds)
                let start = week ? referenceCalendar.dateInterval(of: .weekOfYear, for: date)?.start ?? date
                    : referenceCalendar.startOfDay(for: date)
                add(referenceDay.string(from: start), j)
            }
            let dates = order.compactMap { referenceDay.date(from: $0) }.sorted()
            guard var d = dates.first, let last = dates.last else { return [] }
            var out: [(String, [Journey])] = []
            while d <= last {
                let key = referenceDay.string(from: d)
                out.append((key, buckets[key] ?? []))
                d = referenceCalendar.date(byAdding: week ? .weekOfYear : .day, value: 1, to: d) ?? last.addingTimeInterval(1)
            }
            return out
        }
    }

    /// The figures for one set of selected users.
    func referenceFigures(_ users: [Journey], query: ReportQuery, undecided: Bool) -> FunnelReport {
        var completed = 0, inProgress = 0, abandoned = 0
        var states: [Journey.State] = []
        states.reserveCapacity(users.count)
        var durations: [Double] = []
        for j in users {
            let s = j.state(asOf: query.asOf, idleSeconds: query.idleSeconds)
            states.append(s)
            switch s {
            case .completed:
                completed += 1
                if let d = j.secondsToComplete { durations.append(d) }
            case .inProgress: inProgress += 1
            case .abandoned: abandoned += 1
            }
        }
        durations.sort()
        let started = users.count
        let ci = Statistics.wilson(successes: completed, trials: started)
        let (rows, lanes) = referenceStepRows(users, states: states, undecided: undecided)
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
            steps: rows, topDropoffs: Array(top), by: nil, groups: nil, drift: nil, lanes: lanes)
    }

    /// The drift findings, tallied from each journey's facts: selected users, users who never
    /// started but whose first event is in the window and who pass the filters, and users only
    /// the cohort or a filter left out (their unlisted answers to the keys it reads).
    func referenceDrift(_ journeys: [Journey], query: ReportQuery) -> [FunnelReport.DriftFinding] {
        let vocabulary = FlowVocabulary(definition)
        var keys = Set(query.filters.flatMap { $0.condition.keys })
        if let c = query.cohort, let cond = try? Condition(parsing: c.where) { keys.formUnion(cond.keys) }
        var tally: [DriftTally.Key: (users: Int, leftOut: Int, first: Int64, last: Int64, versions: Set<String>)] = [:]
        for j in journeys {
            let facts = DriftFact.facts(of: j, vocabulary: vocabulary)
            let time = (j.startedAt ?? j.firstEventAt).micros
            guard !facts.isEmpty, query.inWindow(time) else { continue }
            let counted = query.passesFilters(j, definition: definition)
            for f in facts where counted || (j.startedAt != nil && f.kind == .unlistedValue && keys.contains(f.name)) {
                let key = DriftTally.Key(kind: f.kind, name: f.name, detail: f.detail)
                var e = tally[key] ?? (0, 0, Int64.max, Int64.min, [])
                if counted { e.users += 1 } else { e.leftOut += 1 }
                e.first = min(e.first, f.at)
                e.last = max(e.last, f.at)
                if let v = j.appVersion { e.versions.insert(v) }
                tally[key] = e
            }
        }
        return tally.keys.sorted { a, b in
            a.kind.rawValue != b.kind.rawValue ? a.kind.rawValue < b.kind.rawValue
                : tally[a]?.users != tally[b]?.users ? (tally[a]?.users ?? 0) > (tally[b]?.users ?? 0)
                : (a.name, a.detail) < (b.name, b.detail)
        }.compactMap { key in
            guard let e = tally[key] else { return nil }
            var f = FunnelReport.DriftFinding(
                kind: key.kind.jsonName, users: e.users, usersLeftOut: e.leftOut,
                firstSeen: Timestamp(micros: e.first).description, lastSeen: Timestamp(micros: e.last).description,
                appVersions: e.versions.sorted { Condition.compareVersions($0, $1) < 0 }, summary: "", fix: "")
            DriftTally.describe(&f, key, definition, vocabulary)
            return f
        }
    }

    /// One row per step: the steps every lane shares once (lane nil, all users), then each
    /// lane's own steps (the users on that lane).
    func referenceStepRows(_ users: [Journey], states: [Journey.State],
                           undecided: Bool) -> ([FunnelReport.StepRow], [FunnelReport.LaneUsers]) {
        // Every step of every lane gets a slot; each user's visits and path are read once
        // into flat per-(user, slot) arrays, so the per-step counting below does no lookups.
        var slot: [String: Int] = [:]
        for lane in definition.lanes {
            for ls in lane.steps where slot[ls.id] == nil { slot[ls.id] = slot.count }
        }
        let width = slot.count
        var reachedAt = [Bool](repeating: false, count: users.count * width)
        var seconds = [Double](repeating: .nan, count: users.count * width)
        // Path entry bits: 1 present, 2 eligible, 4 reached, 8 skipped, 16 before start.
        var pathBits = [UInt8](repeating: 0, count: users.count * width)
        var current = [Int](repeating: -1, count: users.count)
        for n in users.indices {
            let base = n * width
            for v in users[n].visits {
                guard let k = slot[v.step], !reachedAt[base + k] else { continue }
                reachedAt[base + k] = true
                if let s = v.secondsOnStep { seconds[base + k] = s }
            }
            for p in users[n].path {
                guard let k = slot[p.step], pathBits[base + k] == 0 else { continue }
                var bits: UInt8 = 1
                if p.eligible { bits |= 2 }
                if p.reached { bits |= 4 }
                if p.status == .skipped { bits |= 8 }
                if p.status == .beforeStart { bits |= 16 }
                pathBits[base + k] = bits
            }
            if let c = users[n].currentStep, let k = slot[c] { current[n] = k }
        }
        let everyone = Array(users.indices)
        var layout: [(lane: String?, steps: [FlowDefinition.LaneStep], members: [Int], previous: String?)] = []
        if definition.lanes.count == 1, let only = definition.lanes.first {
            layout.append((only.id, only.steps, everyone, nil))
        } else {
            let shared = definition.sharedPrefix
            if let first = definition.lanes.first, !shared.isEmpty {
                layout.append((nil, Array(first.steps.prefix(shared.count)), everyone, nil))
            }
            for lane in definition.lanes {
                layout.append((lane.id, Array(lane.steps.dropFirst(shared.count)),
                               everyone.filter { users[$0].lane == lane.id }, shared.last))
            }
            if undecided {
                var seen = Set(shared)
                let rest = definition.lanes.flatMap(\.steps).filter { seen.insert($0.id).inserted }.map { FlowDefinition.LaneStep(id: $0.id) }
                layout.append((FunnelReport.undecidedLane, rest, everyone.filter { users[$0].lane == nil }, shared.last))
            }
        }
        let lanes = layout.compactMap { block in block.lane.map { FunnelReport.LaneUsers(lane: $0, users: block.members.count) } }
        var rows: [FunnelReport.StepRow] = []
        for (laneID, steps, members, previous) in layout {
            var previousReached = previous.map { p in
                slot[p].map { k in members.reduce(0) { $0 + (reachedAt[$1 * width + k] ? 1 : 0) } } ?? 0
            }
            for ls in steps {
                let def = definition.step(ls.id)
                var reached = 0, eligible = 0, eligibleReached = 0, skipped = 0, dropped = 0, before = 0
                var dwell: [Double] = []
                if let k = slot[ls.id] {
                    for n in members {
                        let at = n * width + k
                        if reachedAt[at] {
                            reached += 1
                            if !seconds[at].isNaN { dwell.append(seconds[at]) }
                        }
                        let bits = pathBits[at]
                        if bits != 0 {
                            if bits & 2 != 0 {
                                eligible += 1
                                if bits & 4 != 0 { eligibleReached += 1 }
                            }
                            if bits & 8 != 0 { skipped += 1 }
                            if bits & 16 != 0 { before += 1 }
                        }
                        if current[n] == k && states[n] == .abandoned { dropped += 1 }
                    }
                }
                dwell.sort()
                let conditions = [def?.when, def?.flag.map { "flag:\($0)" }, ls.when, ls.flag.map { "flag:\($0)" }].compactMap { $0 }
                rows.append(.init(
                    step: ls.id, lane: laneID,
                    kind: def?.kind.rawValue ?? "unknown", title: def?.title,
                    condition: conditions.isEmpty ? nil : conditions.joined(separator: " and "),
                    reached: reached, eligible: eligible, eligibleReached: eligibleReached, skipped: skipped,
                    dropped: dropped,
                    conversionFromPrevious: previousReached.flatMap { $0 == 0 ? nil : Double(reached) / Double($0) },
                    conversionFromEligible: eligible == 0 ? nil : Double(eligibleReached) / Double(eligible),
                    medianSecondsOnStep: Statistics.percentile(sorted: dwell, 0.5),
                    tracked: !(reached == 0 && before > 0 && before == members.count)))
                // The next step converts from the last step every user of the lane is shown:
                // a step behind a condition or flag is no baseline for the ones after it.
                if conditions.isEmpty { previousReached = reached }
            }
        }
        return (rows, lanes)
    }
}

/// The ISO 8601 calendar in UTC (weeks start on Monday).
let referenceCalendar: Calendar = {
    var c = Calendar(identifier: .iso8601)
    c.timeZone = TimeZone(identifier: "UTC") ?? c.timeZone
    return c
}()

/// `YYYY-MM-DD` in UTC.
let referenceDay: DateFormatter = {
    let f = DateFormatter()
    f.calendar = referenceCalendar
    f.locale = Locale(identifier: "en_US_POSIX")
    f.timeZone = referenceCalendar.timeZone
    f.dateFormat = "yyyy-MM-dd"
    return f
}()

extension ReportBuilder {
    /// docs/paths.md's adjacent pairs read plainly: every two steps one after the other on a
    /// lane, once, in lane order; per selected user, their first view of the one to their first
    /// view of the other after it (view runs up to as-of).
    func referencePairs(_ selected: [Journey], query: ReportQuery) -> [PathsReport.TimeBetween] {
        var pairs: [[String]] = []
        for lane in definition.lanes {
            for k in lane.steps.indices.dropFirst() where !pairs.contains([lane.steps[k - 1].id, lane.steps[k].id]) {
                pairs.append([lane.steps[k - 1].id, lane.steps[k].id])
            }
        }
        return pairs.compactMap { pair in
            let micros = selected.compactMap { j -> Int64? in
                let runs = j.viewRuns.filter { $0.at.micros <= query.asOf.micros }
                guard let i = runs.firstIndex(where: { $0.step == pair[0] }),
                      let k = runs.indices.first(where: { $0 > i && runs[$0].step == pair[1] }) else { return nil }
                return runs[k].at.micros - runs[i].at.micros
            }
            return micros.isEmpty ? nil : PathsReport.TimeBetween(pair[0], pair[1], micros: micros)
        }
    }
}
