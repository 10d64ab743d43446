import FunnelModel
import Projections

/// What to report: which users (cohort, ad hoc filters, start window), as of when, and how to
/// break the figures down.
public struct ReportQuery: Sendable, Hashable {
    public enum Dimension: Sendable, Hashable, CustomStringConvertible {
        case cohort, lane, appVersion, week
        case flag(String)

        public init?(parsing text: String) {
            switch text {
            case "cohort": self = .cohort
            case "lane": self = .lane
            case "app_version": self = .appVersion
            case "week": self = .week
            default:
                guard text.hasPrefix("flag:"), text.count > 5 else { return nil }
                self = .flag(String(text.dropFirst(5)))
            }
        }

        public var description: String {
            switch self {
            case .cohort: return "cohort"
            case .lane: return "lane"
            case .appVersion: return "app_version"
            case .week: return "week"
            case .flag(let f): return "flag:\(f)"
            }
        }
    }

    public var cohort: FlowDefinition.Cohort?
    /// Ad hoc filters, each `KEY=VALUE` as a condition.
    public var filters: [(text: String, condition: Condition)]
    public var since: Timestamp?
    public var until: Timestamp?
    public var asOf: Timestamp
    public var idleSeconds: Double
    public var by: Dimension?

    public init(cohort: FlowDefinition.Cohort? = nil, filters: [(text: String, condition: Condition)] = [],
                since: Timestamp? = nil, until: Timestamp? = nil, asOf: Timestamp,
                idleSeconds: Double = Journey.defaultIdleSeconds, by: Dimension? = nil) {
        self.cohort = cohort
        self.filters = filters
        self.since = since
        self.until = until
        self.asOf = asOf
        self.idleSeconds = idleSeconds
        self.by = by
    }

    public static func == (a: ReportQuery, b: ReportQuery) -> Bool {
        a.cohort == b.cohort && a.filters.map(\.text) == b.filters.map(\.text) && a.since == b.since
            && a.until == b.until && a.asOf == b.asOf && a.idleSeconds == b.idleSeconds && a.by == b.by
    }

    public func hash(into h: inout Hasher) {
        h.combine(cohort)
        h.combine(filters.map(\.text))
        h.combine(asOf)
    }

    /// Whether a journey is in the selection (started users only, as DESIGN.md says).
    public func selects(_ j: Journey, definition: FlowDefinition) -> Bool {
        guard let started = j.startedAt, started <= asOf else { return false }
        if let since, started < since { return false }
        if let until, started >= until { return false }
        let ctx = j.conditionContext(flagDefaults: definition.flagDefaults)
        if let cohort {
            guard let cond = try? Condition(parsing: cohort.where), cond.evaluate(ctx) == true else { return false }
        }
        for f in filters where f.condition.evaluate(ctx) != true { return false }
        return true
    }
}

/// Turns journeys into a `FunnelReport`.
public struct ReportBuilder: Sendable {
    public let definition: FlowDefinition

    public init(definition: FlowDefinition) {
        self.definition = definition
    }

    /// The report over `journeys` (every journey of the flow; the query selects).
    public func report(_ journeys: [Journey], query: ReportQuery) -> FunnelReport {
        var accumulator = ReportAccumulator(builder: self, query: query)
        for j in journeys { accumulator.add(j) }
        return accumulator.report()
    }

    /// ISO 8601 week of a time (UTC), `2026-W41`.
    public static func isoWeek(_ t: Timestamp) -> String {
        var days = t.micros / 86_400_000_000
        if t.micros < 0 && t.micros % 86_400_000_000 != 0 { days -= 1 }
        // 1970-01-01 was a Thursday; ISO weekday 1 = Monday.
        let weekday = ((days + 3) % 7 + 7) % 7 + 1
        let thursday = days - weekday + 4
        let (year, _, _) = Timestamp.civil(fromDays: thursday)
        let jan1 = Timestamp.days(year: year, month: 1, day: 1)
        let week = (thursday - jan1) / 7 + 1
        return "\(year)-W\(week < 10 ? "0" : "")\(week)"
    }

}
