import Foundation
import FunnelModel
import Journeys

extension ReportRequest {
    /// What in a request matched no user, said instead of a silent 0: a flow the store holds
    /// no events of, a window or as-of outside the data, a `--where` or `--cohort` that selects
    /// nobody in the window (with the values the key does have there), a `--by` whose every
    /// user falls in one catch-all group. Reads the journeys again only when the report is
    /// empty and a filter or cohort could be the reason.
    public func warnings(for report: FunnelReport, source: any JourneySource, definitions: [FlowDefinition],
                         now: Timestamp) throws -> [String] {
        let (definition, query) = try resolve(in: source, definitions: definitions, now: now)
        let warnings = ReportRequest.breakdownWarnings(report, query: query, definition: definition)
            + (try asOfWarnings(query: query, source: source))
        guard report.users.started == 0 else { return warnings }
        return warnings + (try emptyWarnings(definition: definition, query: query, source: source))
    }

    /// For an empty user list: why (as for an empty report).
    public func warnings(for list: UserList, source: any JourneySource, definitions: [FlowDefinition],
                         now: Timestamp) throws -> [String] {
        let (definition, query) = try resolve(in: source, definitions: definitions, now: now)
        let warnings = try asOfWarnings(query: query, source: source)
        guard list.users.isEmpty else { return warnings }
        return warnings + (try emptyWarnings(definition: definition, query: query, source: source))
    }

    /// An `--as-of` after the latest event: every user idle since then counts as abandoned.
    func asOfWarnings(query: ReportQuery, source: any JourneySource) throws -> [String] {
        guard let asOf, let latest = try source.log.latestEventTime(notAfter: nil), query.asOf > latest else { return [] }
        return ["--as-of \(asOf) is after the latest event in the store (\(latest)): users idle since count as abandoned"]
    }

    /// Why a selection holds nobody: no events of the flow at all, nobody started in the
    /// window or by as-of, or a cohort or filter that matches none of those who did.
    func emptyWarnings(definition: FlowDefinition, query: ReportQuery, source: any JourneySource) throws -> [String] {
        let flows = try source.log.flows()
        guard flows.contains(definition.id) else {
            return ["the store holds no events of flow \(definition.id); it holds "
                    + (flows.isEmpty ? "no events" : "events of: " + flows.joined(separator: ", "))]
        }
        if query.cohort != nil || !query.filters.isEmpty {
            return try filterWarnings(definition: definition, query: query, source: source)
        }
        let latest = try source.log.latestEventTime(notAfter: nil)
        return ["no user started in flow \(definition.id)" + (since != nil || until != nil ? " in the window" : "")
                + " before as-of \(query.asOf)" + (latest.map { "; the store's latest event is at \($0)" } ?? "")]
    }

    /// Each filter and the cohort tried alone on the users who started in the window.
    func filterWarnings(definition: FlowDefinition, query: ReportQuery, source: any JourneySource) throws -> [String] {
        guard query.cohort != nil || !query.filters.isEmpty else { return [] }
        var warnings: [String] = []
        // The selection without cohort and filters: started users in the window, as of.
        let window = ReportQuery(since: query.since, until: query.until, asOf: query.asOf, idleSeconds: query.idleSeconds)
        var inWindow = 0
        var cohortMatches = 0
        var filterMatches = Array(repeating: 0, count: query.filters.count)
        var values: [String: Set<String>] = [:]
        let keys = Set(query.filters.flatMap(\.condition.keys))
        try source.forEachJourney(flow: definition.id, definition: definition, asOf: query.asOf) { j in
            guard window.selects(j, definition: definition) else { return }
            inWindow += 1
            let ctx = j.conditionContext(flagDefaults: definition.flagDefaults)
            if let cohort = query.cohort, (try? Condition(parsing: cohort.where))?.evaluate(ctx) == true { cohortMatches += 1 }
            for (i, f) in query.filters.enumerated() where f.condition.evaluate(ctx) == true { filterMatches[i] += 1 }
            for key in keys {
                if let v = ctx.lookup(key) { values[key, default: []].insert(v.stringValue ?? v.jsonText) }
            }
        }
        if inWindow == 0 {
            // Nobody to filter: the window is the reason, not the filters.
            warnings.append("no user started in flow \(definition.id)" + (since != nil || until != nil ? " in the window" : "")
                            + " before as-of \(query.asOf); cohort and filters were not tried")
            return warnings
        }
        let scope = "of the \(inWindow) user\(inWindow == 1 ? "" : "s") who started in flow \(definition.id)"
            + (since != nil || until != nil ? " in the window" : "")
        if let cohort = query.cohort, cohortMatches == 0 {
            warnings.append("--cohort \(cohort.id) (\(cohort.where)) matches none \(scope)")
        }
        for (i, f) in query.filters.enumerated() where filterMatches[i] == 0 {
            let found = f.condition.keys.map { key -> String in
                let seen = values[key, default: []].sorted()
                return seen.isEmpty ? "no user has \(key)" : "\(key) is one of: \(seen.joined(separator: ", "))"
            }
            warnings.append("--where \(f.text) matches none \(scope); " + found.joined(separator: "; "))
        }
        return warnings
    }

    /// A breakdown whose users all fall into one catch-all group says nothing: say why.
    static func breakdownWarnings(_ report: FunnelReport, query: ReportQuery, definition: FlowDefinition) -> [String] {
        guard let groups = report.groups, report.users.started > 0 else { return [] }
        return query.dimensions.flatMap { by in
            var populated: [String] = []
            for g in groups where g.report.users.started > 0 {
                if let v = g.value(of: by.description), !populated.contains(v) { populated.append(v) }
            }
            return breakdownWarnings(by, populated: populated, definition: definition)
        }
    }

    /// The warning for one dimension whose users all have one catch-all value.
    static func breakdownWarnings(_ by: ReportQuery.Dimension, populated: [String], definition: FlowDefinition) -> [String] {
        switch by {
        case .cohort where populated == ["(none)"]:
            return ["--by cohort: no user in the selection is in a cohort of flow \(definition.id)"
                    + " (cohorts: \(definition.cohorts.map(\.id).joined(separator: ", ")))"]
        case .appVersion where populated == ["(unknown)"]:
            return ["--by app_version: no user in the selection sent an app_version"]
        case .lane where populated == ["(undecided)"]:
            return ["--by lane: no user in the selection has a lane yet"]
        case .platform where populated == ["(unknown)"]:
            return ["--by platform: no user in the selection sent a platform"]
        case .flag(let name) where populated.count == 1:
            return ["--by flag:\(name): every user in the selection has it \(populated[0])"]
        default:
            return []
        }
    }
}
