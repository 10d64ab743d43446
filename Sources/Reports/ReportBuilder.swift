import FunnelModel
import Journeys

/// What to report: which users (cohort, ad hoc filters, start window), as of when, and how to
/// break the figures down.
public struct ReportQuery: Sendable, Hashable {
    public enum Dimension: Sendable, Hashable, CustomStringConvertible {
        case cohort, lane, appVersion, platform, day, week
        case flag(String)

        /// What `--by` accepts, for messages.
        public static let help = "cohort, lane, app_version, platform, day, week or flag:NAME"

        public init?(parsing text: String) {
            switch text {
            case "cohort": self = .cohort
            case "lane": self = .lane
            case "app_version": self = .appVersion
            case "platform": self = .platform
            case "day": self = .day
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
            case .platform: return "platform"
            case .day: return "day"
            case .week: return "week"
            case .flag(let f): return "flag:\(f)"
            }
        }

        /// For a time dimension, the bucket of a time: its first day, `YYYY-MM-DD` (UTC; a
        /// week starts on Monday); nil for the other dimensions.
        public func bucket(_ t: Timestamp) -> String? {
            switch self {
            case .day: return t.utcDay
            case .week: return Timestamp(micros: ReportBuilder.mondayMicros(t)).utcDay
            default: return nil
            }
        }

        /// A time bucket's length in seconds (nil for the other dimensions).
        public var bucketSeconds: Double? {
            switch self {
            case .day: return 86_400
            case .week: return 7 * 86_400
            default: return nil
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
    /// A second breakdown (`--by A --by B`): one group per pair of values that has users.
    public var alsoBy: Dimension?

    public init(cohort: FlowDefinition.Cohort? = nil, filters: [(text: String, condition: Condition)] = [],
                since: Timestamp? = nil, until: Timestamp? = nil, asOf: Timestamp,
                idleSeconds: Double = Journey.defaultIdleSeconds, by: Dimension? = nil, alsoBy: Dimension? = nil) {
        self.cohort = cohort
        self.filters = filters
        self.since = since
        self.until = until
        self.asOf = asOf
        self.idleSeconds = idleSeconds
        self.by = by
        self.alsoBy = alsoBy
    }

    /// The breakdown's dimensions in order: none, `by`, or `by` and `alsoBy`.
    public var dimensions: [Dimension] { [by, alsoBy].compactMap { $0 } }

    public static func == (a: ReportQuery, b: ReportQuery) -> Bool {
        a.cohort == b.cohort && a.filters.map(\.text) == b.filters.map(\.text) && a.since == b.since
            && a.until == b.until && a.asOf == b.asOf && a.idleSeconds == b.idleSeconds && a.by == b.by
            && a.alsoBy == b.alsoBy
    }

    public func hash(into h: inout Hasher) {
        h.combine(cohort)
        h.combine(filters.map(\.text))
        h.combine(asOf)
    }

    /// The collected answers the cohort and the `--where` filters read.
    public var conditionKeys: [String] {
        var conditions = filters.map(\.condition)
        if let cohort, let c = try? Condition(parsing: cohort.where) { conditions.append(c) }
        var keys: [String] = []
        for key in conditions.flatMap(\.keys) where !key.hasPrefix("flag:") && !["app_version", "platform", "start_date"].contains(key) {
            if !keys.contains(key) { keys.append(key) }
        }
        return keys
    }

    /// Whether a journey is in the selection (started users only, as DESIGN.md says).
    public func selects(_ j: Journey, definition: FlowDefinition) -> Bool {
        guard let started = j.startedAt, inWindow(started.micros) else { return false }
        return passesFilters(j, definition: definition)
    }

    /// Whether a journey given by its glance is in the selection, as `selects` says of the
    /// whole journey (`request` asked for the answers the cohort and filters name).
    public func selects(_ g: JourneyGlance, request: JourneyGlance.Request, flagDefaults: [String: Bool]) -> Bool {
        guard let started = g.startedAt, inWindow(started) else { return false }
        return passesFilters(g.conditionContext(request, flagDefaults: flagDefaults))
    }

    /// Whether a start (or first event) time is in the selection's window: not after as-of,
    /// from `since`, before `until`.
    public func inWindow(_ micros: Int64) -> Bool {
        if micros > asOf.micros { return false }
        if let since, micros < since.micros { return false }
        if let until, micros >= until.micros { return false }
        return true
    }

    /// Whether a journey satisfies the cohort and every `--where` filter.
    public func passesFilters(_ j: Journey, definition: FlowDefinition) -> Bool {
        passesFilters(j.conditionContext(flagDefaults: definition.flagDefaults))
    }

    /// Whether a context satisfies the cohort and every `--where` filter.
    public func passesFilters(_ ctx: @autoclosure () -> ConditionContext) -> Bool {
        guard cohort != nil || !filters.isEmpty else { return true }
        let ctx = ctx()
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

    /// The start (00:00 UTC) of the Monday of a time's ISO week, in microseconds.
    public static func mondayMicros(_ t: Timestamp) -> Int64 {
        var days = t.micros / 86_400_000_000
        if t.micros < 0 && t.micros % 86_400_000_000 != 0 { days -= 1 }
        // 1970-01-01 was a Thursday: days since a Monday are (days + 3) mod 7.
        let sinceMonday = ((days + 3) % 7 + 7) % 7
        return (days - sinceMonday) * 86_400_000_000
    }

}
