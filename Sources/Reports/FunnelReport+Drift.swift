import FunnelModel
import Journeys

extension FunnelReport {
    /// One way the logs disagree with the flow definition, with its evidence and the edit of
    /// the definition that would absorb it (docs/drift.md, docs/report-json.md).
    public struct DriftFinding: Sendable, Hashable, Codable {
        /// `unlisted_value`, `step_not_in_flow`, `step_off_lane`, `unknown_event`,
        /// `undeclared_flag`, `not_started` or `completed_without_terminal`.
        public var kind: String
        /// The answer's key (`unlisted_value`).
        public var key: String?
        /// The answer (`unlisted_value`).
        public var value: String?
        /// The step viewed (`step_*`), or the terminal step not viewed.
        public var step: String?
        /// The users' lane (`step_off_lane`, `completed_without_terminal`; nil: undecided).
        public var lane: String?
        public var event: String?
        public var flag: String?
        /// Users of the selection it applies to.
        public var users: Int
        /// Users the cohort or `--where` left out of the selection because of it (an answer
        /// the filter reads).
        public var usersLeftOut: Int
        /// When the first and the last of these users showed it (UTC).
        public var firstSeen: String
        public var lastSeen: String
        /// The app versions of these users, in version order.
        public var appVersions: [String]
        /// What it is and what the report does with these users, in a sentence.
        public var summary: String
        /// The edit of the definition that would absorb it, or why none would.
        public var fix: String

        enum CodingKeys: String, CodingKey {
            case kind, key, value, step, lane, event, flag, users
            case usersLeftOut = "users_left_out", firstSeen = "first_seen", lastSeen = "last_seen"
            case appVersions = "app_versions", summary, fix
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(kind, forKey: .kind)
            try c.encode(key, forKey: .key)
            try c.encode(value, forKey: .value)
            try c.encode(step, forKey: .step)
            try c.encode(lane, forKey: .lane)
            try c.encode(event, forKey: .event)
            try c.encode(flag, forKey: .flag)
            try c.encode(users, forKey: .users)
            try c.encode(usersLeftOut, forKey: .usersLeftOut)
            try c.encode(firstSeen, forKey: .firstSeen)
            try c.encode(lastSeen, forKey: .lastSeen)
            try c.encode(appVersions, forKey: .appVersions)
            try c.encode(summary, forKey: .summary)
            try c.encode(fix, forKey: .fix)
        }

        /// The evidence in a line: users, first and last seen, app versions.
        public var evidence: String {
            var parts = ["\(users) users"]
            if usersLeftOut > 0 { parts.append("\(usersLeftOut) left out of the selection") }
            parts.append("seen \(Self.minute(firstSeen))" + (firstSeen == lastSeen ? "" : " to \(Self.minute(lastSeen))"))
            if !appVersions.isEmpty { parts.append("app " + appVersions.joined(separator: ", ")) }
            return parts.joined(separator: " · ")
        }

        /// `2026-10-02T11:23:35Z` as `2026-10-02 11:23Z`.
        static func minute(_ time: String) -> String {
            guard time.count >= 16 else { return time }
            return time.prefix(10) + " " + time.dropFirst(11).prefix(5) + "Z"
        }
    }

    /// The drift section of the text report: empty when the logs agree with the definition.
    func driftText() -> String {
        guard let drift, !drift.isEmpty else { return "" }
        var out = Format.wrapped("drift: the logs and flow \(flow) disagree; `funnel flows drift --flow \(flow)` "
                                 + "says how to absorb each finding", indent: 0)
        for d in drift {
            out += Format.wrapped("• " + d.summary, indent: 2)
            out += Format.wrapped(d.evidence, indent: 4)
        }
        return out + "\n"
    }

    /// The drift section in Markdown.
    func driftMarkdown() -> String {
        guard let drift, !drift.isEmpty else { return "" }
        var out = "## Drift: the logs and the definition disagree\n\n"
        out += "| finding | users | left out | first seen | last seen | app versions |\n|---|---:|---:|---|---|---|\n"
        for d in drift {
            out += "| \(Markdown.text(d.summary)) | \(d.users) | \(d.usersLeftOut) | \(Markdown.text(d.firstSeen)) | "
            out += "\(Markdown.text(d.lastSeen)) | " + d.appVersions.map(Markdown.text).joined(separator: ", ") + " |\n"
        }
        return out + "\n"
    }

    /// The drift findings as CSV: one row each; cells safe to open in a spreadsheet unless
    /// `raw` (`CSV`).
    public func driftCSV(raw: Bool = false) -> String {
        var out = "kind,key,value,step,lane,event,flag,users,users_left_out,first_seen,last_seen,app_versions,summary,fix\n"
        for d in drift ?? [] {
            let cells = [d.kind, d.key ?? "", d.value ?? "", d.step ?? "", d.lane ?? "", d.event ?? "", d.flag ?? "",
                         String(d.users), String(d.usersLeftOut), d.firstSeen, d.lastSeen,
                         d.appVersions.joined(separator: " "), d.summary, d.fix]
            out += CSV.row(cells, raw: raw)
        }
        return out
    }
}

extension FunnelReport {
    /// `funnel flows drift`: every finding with its evidence and the edit that absorbs it.
    public func driftListing() -> String {
        let drift = self.drift ?? []
        let users = users.started
        guard !drift.isEmpty else {
            return Format.wrapped("flow \(flow) agrees with the logs: no drift in \(users) started users as of \(asOf)", indent: 0)
        }
        var out = Format.wrapped("flow \(flow) and the logs disagree in \(drift.count) way\(drift.count == 1 ? "" : "s") "
                                 + "(\(users) started users as of \(asOf)):", indent: 0)
        for (i, d) in drift.enumerated() {
            out += "\n" + Format.wrapped("\(i + 1). " + d.summary, indent: 0)
            out += Format.wrapped(d.evidence, indent: 3)
            out += Format.wrapped("fix: " + d.fix, indent: 3)
        }
        return out
    }
}

extension FunnelReport {
    /// `funnel flows drift --format json`: {flow, as_of, users_started, drift: [finding]}.
    public static func driftJSON(_ report: FunnelReport) throws -> String {
        struct Listing: Encodable {
            var flow: String
            var asOf: String
            var usersStarted: Int
            var drift: [DriftFinding]
            enum CodingKeys: String, CodingKey { case flow, asOf = "as_of", usersStarted = "users_started", drift }
        }
        return try jsonText(Listing(flow: report.flow, asOf: report.asOf, usersStarted: report.users.started, drift: report.drift ?? []))
    }
}
