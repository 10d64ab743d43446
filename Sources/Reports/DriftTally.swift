import FunnelModel
import Journeys

/// Counts the drift facts of the journeys a report reads into findings: per distinct fact,
/// its users, the users a filter left out because of it, when it was first and last seen and
/// on which app versions.
struct DriftTally {
    struct Key: Hashable {
        var kind: DriftFact.Kind
        var name: String
        var detail: String
    }

    struct Evidence {
        var users = 0
        var leftOut = 0
        var first = Int64.max
        var last = Int64.min
        var appVersions: Set<String> = []

        /// Counts one user's fact: among the selection's users, or among those left out.
        mutating func count(_ f: DriftFact, appVersion: String?, leftOut: Bool) {
            if leftOut { self.leftOut += 1 } else { users += 1 }
            first = min(first, f.at)
            last = max(last, f.at)
            if let appVersion, lastVersion != appVersion {
                appVersions.insert(appVersion)
                lastVersion = appVersion
            }
        }

        /// Adds the evidence another share of the users gave.
        mutating func merge(_ other: Evidence) {
            users += other.users
            leftOut += other.leftOut
            first = min(first, other.first)
            last = max(last, other.last)
            appVersions.formUnion(other.appVersions)
        }

        /// The version inserted last: most users in a row share it, so most inserts are skipped.
        private var lastVersion: String?
    }

    var entries: [Key: Evidence] = [:]

    /// A selected user's facts.
    mutating func add(_ facts: [DriftFact], appVersion: String?) {
        for f in facts {
            entries[Key(kind: f.kind, name: f.name, detail: f.detail), default: Evidence()]
                .count(f, appVersion: appVersion, leftOut: false)
        }
    }

    /// Adds the findings of another share of the users.
    mutating func merge(_ other: DriftTally) {
        for (key, evidence) in other.entries {
            entries[key, default: Evidence()].merge(evidence)
        }
    }

    /// The facts of a user the selection's filters left out: those that are answers a filter
    /// reads (`keys`) count as the reason.
    mutating func addLeftOut(_ facts: [DriftFact], appVersion: String?, keys: Set<String>) {
        for f in facts where f.kind == .unlistedValue && keys.contains(f.name) {
            entries[Key(kind: f.kind, name: f.name, detail: f.detail), default: Evidence()]
                .count(f, appVersion: appVersion, leftOut: true)
        }
    }

    /// The findings: by kind, then most users first, then by name.
    func findings(_ definition: FlowDefinition, vocabulary: FlowVocabulary) -> [FunnelReport.DriftFinding] {
        let order = entries.keys.sorted { a, b in
            if a.kind != b.kind { return a.kind.rawValue < b.kind.rawValue }
            let ua = entries[a]?.users ?? 0, ub = entries[b]?.users ?? 0
            if ua != ub { return ua > ub }
            return (a.name, a.detail) < (b.name, b.detail)
        }
        return order.compactMap { key in
            guard let e = entries[key] else { return nil }
            var f = FunnelReport.DriftFinding(
                kind: key.kind.jsonName, users: e.users, usersLeftOut: e.leftOut,
                firstSeen: Timestamp(micros: e.first).description, lastSeen: Timestamp(micros: e.last).description,
                appVersions: VersionOrder.sorted(e.appVersions),
                summary: "", fix: "")
            DriftTally.describe(&f, key, definition, vocabulary)
            return f
        }
    }

    /// Fills the finding's subject fields, its summary and its fix.
    static func describe(_ f: inout FunnelReport.DriftFinding, _ key: Key, _ definition: FlowDefinition,
                         _ vocabulary: FlowVocabulary) {
        let lane = key.detail.isEmpty ? nil : key.detail
        switch key.kind {
        case .unlistedValue:
            f.key = key.name
            f.value = key.detail
            let collecting = definition.steps.filter { $0.collects.contains { $0.key == key.name } }.map(\.id)
            let decidesLane = key.name == vocabulary.laneKey
            f.summary = "\(key.name) = \(key.detail): a value the flow does not list"
                + (decidesLane ? "; it decides the lane, so these users are on no lane" : "")
            var fix = "add \"\(key.detail)\" to the values of \(key.name)"
                + (collecting.isEmpty ? "" : " (collected by step \(collecting.joined(separator: ", ")))")
            if decidesLane {
                fix += " and to the `when` of the lane it belongs to (" + definition.lanes.map(\.id).joined(separator: ", ") + ")"
            }
            let cohorts = definition.cohorts.filter { c in
                (try? Condition(parsing: c.where))?.keys.contains(key.name) == true
            }.map(\.id)
            if !cohorts.isEmpty { fix += "; check cohorts " + cohorts.joined(separator: ", ") + ", which read \(key.name)" }
            f.fix = fix
        case .stepNotInFlow:
            f.step = key.name
            f.summary = "step \(key.name) viewed: not in the flow, so on no row of the step table"
            f.fix = "declare step \(key.name) in `steps` and list it on the steps of the lanes that show it"
        case .stepOffLane:
            f.step = key.name
            f.lane = lane
            if let lane {
                f.summary = "step \(key.name) viewed by users on lane \(lane), which does not have it"
                f.fix = "add \(key.name) to the steps of lane \(lane) (with a `when` if only some users see it)"
            } else {
                f.summary = "step \(key.name) viewed: it is on no lane"
                f.fix = "list \(key.name) on the steps of the lanes that show it"
            }
        case .unknownEvent:
            f.event = key.name
            f.summary = "event \(key.name): not an onboarding event; stored, not counted"
            f.fix = "none in the flow definition: event names are fixed by schemas/event.schema.json"
        case .undeclaredFlag:
            f.flag = key.name
            f.summary = "flag \(key.name): sent in context.flags, not declared by the flow"
            f.fix = "declare flag \(key.name) in `flags` (with its default), and put it on the steps it shows"
        case .notStarted:
            f.summary = "events but no onboarding.started: not counted as started, so on no row"
            f.fix = "none in the flow definition: the app must send onboarding.started first"
        case .completedWithoutTerminal:
            f.step = key.name
            f.lane = lane
            f.summary = "onboarding.completed without a view of the terminal step \(key.name)"
                + (lane.map { " (lane \($0))" } ?? "")
            f.fix = "none in the flow definition if \(key.name) is the last screen: the app must send its step_viewed"
        }
    }
}

extension DriftFact.Kind {
    /// The `kind` of a finding in the report's JSON.
    var jsonName: String {
        switch self {
        case .unlistedValue: return "unlisted_value"
        case .stepNotInFlow: return "step_not_in_flow"
        case .stepOffLane: return "step_off_lane"
        case .unknownEvent: return "unknown_event"
        case .undeclaredFlag: return "undeclared_flag"
        case .notStarted: return "not_started"
        case .completedWithoutTerminal: return "completed_without_terminal"
        }
    }
}
