import Foundation
import FunnelModel
import Journeys

/// The users behind a figure: `funnel users --flow glp1 --state abandoned --step notificationsPermission`.
public struct UserList: Sendable, Hashable, Codable {
    public var flow: String
    public var cohort: String?
    public var state: String?
    public var step: String?
    public var asOf: String
    public var users: [Row]

    public struct Row: Sendable, Hashable, Codable {
        public var userID: String
        public var state: String
        public var currentStep: String?
        public var lane: String?
        public var startedAt: String?
        public var completedAt: String?
        public var lastEventAt: String
        public var secondsToComplete: Double?
        public var appVersion: String?

        enum CodingKeys: String, CodingKey {
            case userID = "user_id", state, currentStep = "current_step", lane, startedAt = "started_at"
            case completedAt = "completed_at", lastEventAt = "last_event_at"
            case secondsToComplete = "seconds_to_complete", appVersion = "app_version"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(userID, forKey: .userID)
            try c.encode(state, forKey: .state)
            try c.encode(currentStep, forKey: .currentStep)
            try c.encode(lane, forKey: .lane)
            try c.encode(startedAt, forKey: .startedAt)
            try c.encode(completedAt, forKey: .completedAt)
            try c.encode(lastEventAt, forKey: .lastEventAt)
            try c.encode(secondsToComplete, forKey: .secondsToComplete)
            try c.encode(appVersion, forKey: .appVersion)
        }

        /// By user id; two ids equal as text but written with other bytes (an accent composed
        /// or not) by their bytes, so that the order never depends on the order met.
        /// User ids in the list's order: as Swift orders strings, ties broken by their bytes.
        static func precedes(_ a: String, _ b: String) -> Bool {
            a != b ? a < b : a.utf8.lexicographicallyPrecedes(b.utf8)
        }

        /// `rows` in user id order, sorted as positions (a row is nine fields to copy).
        static func byUser(_ rows: [Row]) -> [Row] {
            let ids = rows.map(\.userID)
            return ids.indices.sorted { precedes(ids[$0], ids[$1]) }.map { rows[$0] }
        }
    }

    enum CodingKeys: String, CodingKey { case flow, cohort, state, step, asOf = "as_of", users }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(flow, forKey: .flow)
        try c.encode(cohort, forKey: .cohort)
        try c.encode(state, forKey: .state)
        try c.encode(step, forKey: .step)
        try c.encode(asOf, forKey: .asOf)
        try c.encode(users, forKey: .users)
    }

    /// The rows of the journeys the query selects, then by state and current step: added a
    /// glance at a time (a source may add shares apart and merge them; `list` sorts).
    struct Rows: JourneyAccumulator {
        let query: ReportQuery
        let request: JourneyGlance.Request
        let flagDefaults: [String: Bool]
        let state: Journey.State?
        let step: String?
        var rows: [Row] = []

        mutating func add(_ g: JourneyGlance) {
            guard query.selects(g, request: request, flagDefaults: flagDefaults), let started = g.startedAt else { return }
            let s = g.state(asOf: query.asOf, idleSeconds: query.idleSeconds)
            if let state, s != state { return }
            if let step, g.currentStep != step { return }
            let completed = g.completedAt
            rows.append(Row(userID: g.userID, state: s.rawValue, currentStep: g.currentStep, lane: g.lane,
                            startedAt: Timestamp(micros: started).description,
                            completedAt: completed.map { Timestamp(micros: $0).description },
                            lastEventAt: Timestamp(micros: g.lastEventAt).description,
                            secondsToComplete: completed.map { Double($0 - started) / 1_000_000 },
                            appVersion: g.appVersion))
        }

        mutating func merge(_ later: Rows) { rows += later.rows }
    }

    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// One row per user, full ids; cells safe to open in a spreadsheet unless `raw` (`CSV`).
    public func csv(raw: Bool = false) -> String {
        var out = "user_id,state,current_step,lane,started_at,completed_at,last_event_at,seconds_to_complete,app_version\n"
        for r in users {
            let cells = [r.userID, r.state, r.currentStep ?? "", r.lane ?? "", r.startedAt ?? "", r.completedAt ?? "",
                         r.lastEventAt, Format.number(r.secondsToComplete), r.appVersion ?? ""]
            out += CSV.row(cells, raw: raw)
        }
        return out
    }

    /// 80 columns: user, state, current step, last event (UTC). Columns are as wide as their
    /// longest value; when that is wider than 80 columns the current step and then the user
    /// ids are cut (with `…`, said below the table: CSV and JSON have them whole). Values are
    /// escaped for a terminal (`TerminalText`); the heading wraps.
    public func text() -> String {
        let t = TerminalText.escape
        var parts = ["\(users.count) user\(users.count == 1 ? "" : "s")", t(flow)]
        if let cohort { parts.append("cohort \(t(cohort))") }
        if let state { parts.append(t(state)) }
        if let step { parts.append("at \(t(step))") }
        parts.append("as of \(t(asOf))")
        var out = ""
        var line = ""
        for part in parts {
            if !line.isEmpty && line.count + 3 + part.count > 80 {
                out += line + " ·\n"
                line = ""
            }
            line += (line.isEmpty ? "" : " · ") + part
        }
        out += line + "\n"
        let lastWidth = max(16, users.map { t($0.lastEventAt).count }.max() ?? 0)
        let stateWidth = max(5, users.map { t($0.state).count }.max() ?? 0) + 2
        let stepNeeded = max(12, users.map { t($0.currentStep ?? "—").count }.max() ?? 0) + 2
        let userNeeded = max(4, users.map { t($0.userID).count }.max() ?? 0) + 2
        let room = UserList.textWidth - lastWidth - stateWidth
        let stepWidth = min(stepNeeded, max(UserList.minimumStepColumn, room - userNeeded))
        let userWidth = min(userNeeded, max(UserList.minimumUserColumn, room - stepWidth))
        out += Format.pad("user", userWidth) + Format.pad("state", stateWidth) + Format.pad("current step", stepWidth)
            + "last event (UTC)\n"
        for r in users {
            out += Format.pad(TerminalText.fit(r.userID, width: userWidth - 2), userWidth) + Format.pad(r.state, stateWidth)
                + Format.pad(TerminalText.fit(r.currentStep ?? "—", width: stepWidth - 2), stepWidth) + t(r.lastEventAt) + "\n"
        }
        let cut = (userWidth < userNeeded ? ["user ids"] : []) + (stepWidth < stepNeeded ? ["steps"] : [])
        if !cut.isEmpty {
            out += Format.wrapped("(\(cut.joined(separator: " and ")) cut to fit \(UserList.textWidth) columns: "
                                  + "--format csv or json lists them whole)", indent: 0)
        }
        return out
    }

    /// The width of `text()`, and the least its user and current step columns get.
    static let textWidth = 80
    static let minimumUserColumn = 12
    static let minimumStepColumn = 14
}

extension ReportRequest {
    /// The users behind a figure, on the source's journeys.
    public func users(source: any JourneySource, definitions: [FlowDefinition], now: Timestamp, state: String?,
                      step: String?) throws -> UserList {
        let definition = try ReportRequest.resolveFlow(flow, cohort: cohort, definitions: definitions,
                                                       storeFlows: try source.log.flows())
        var stateFilter: Journey.State?
        if let state {
            guard let s = Journey.State(rawValue: state) else {
                throw RequestError("--state \"\(state)\": use \(Journey.State.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            stateFilter = s
        }
        if let step, definition.step(step) == nil {
            throw RequestError("flow \(definition.id) has no step \"\(step)\"; steps: \(definition.orderedStepIDs.joined(separator: ", "))")
        }
        let query = try self.query(for: definition, defaultAsOf: try source.log.defaultAsOf(now: now))
        try checkValues(definition: definition, query: query, source: source)
        // Glances, not whole journeys: what the rows show and the conditions read.
        let request = JourneyGlance.Request(steps: [], keys: query.conditionKeys)
        let blank = UserList.Rows(query: query, request: request, flagDefaults: definition.flagDefaults, state: stateFilter,
                                  step: step)
        let rows = try source.accumulateGlances(flow: definition.id, definition: definition, asOf: query.asOf, request: request,
                                                into: blank).rows
        return UserList(flow: definition.id, cohort: query.cohort?.id, state: stateFilter?.rawValue, step: step,
                        asOf: query.asOf.description, users: UserList.Row.byUser(rows))
    }
}
