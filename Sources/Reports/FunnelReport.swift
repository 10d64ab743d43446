import FunnelModel

/// A funnel report: the figures for one flow, one selection of users, as of one time.
/// Its JSON form (`--format json`) is the stable machine contract documented in
/// docs/report-json.md; field names there are the CodingKeys here.
public struct FunnelReport: Sendable, Hashable, Codable {
    public var flow: String
    public var flowTitle: String
    public var cohort: String?
    /// `--where` filters, as written.
    public var filters: [String]
    public var since: String?
    public var until: String?
    public var asOf: String
    public var idleSeconds: Double
    public var users: Users
    public var completionRate: Double?
    public var completionRateCI95: Interval?
    public var timeToCompleteSeconds: Percentiles
    public var timeToCompleteHistogram: [Bin]
    public var steps: [StepRow]
    public var topDropoffs: [Dropoff]
    /// With `--by`: the same report for each group, side by side. `by` names the dimensions
    /// (two joined by a comma: `app_version,flag:x`), `byDimensions` lists them in order.
    public var by: String?
    public var byDimensions: [String]? = nil
    public var groups: [Group]?
    /// Where the logs and the flow definition disagree (docs/drift.md); in the top-level
    /// report only, empty when they agree.
    public var drift: [DriftFinding]?
    /// The started users on each lane, then on none (`undecidedLane`, when any): they add up
    /// to `users.started`.
    public var lanes: [LaneUsers]?
    /// The time between every two steps one after the other on a lane of the definition, as
    /// `funnel paths` computes it (`adjacent_pairs`); in the top-level report only.
    public var adjacentPairs: [PathsReport.TimeBetween]? = nil
    /// With `--compare`: the other period beside this one.
    public var periodComparison: PeriodComparison? = nil
    /// For the HTML page: what explains the top drop-offs (`ReportRequest.explanations`); not in the JSON.
    public var explanations: [DropoffExplanation]? = nil

    public struct LaneUsers: Sendable, Hashable, Codable {
        public var lane: String
        public var users: Int
    }

    /// The `lane` of the step rows of users whose lane is undecided.
    public static let undecidedLane = "(undecided)"

    public struct Users: Sendable, Hashable, Codable {
        public var started: Int
        public var completed: Int
        public var inProgress: Int
        public var abandoned: Int
        enum CodingKeys: String, CodingKey {
            case started, completed, inProgress = "in_progress", abandoned
        }
    }

    public struct Interval: Sendable, Hashable, Codable {
        public var low: Double
        public var high: Double
    }

    public struct Percentiles: Sendable, Hashable, Codable {
        public var count: Int
        public var p50: Double?
        public var p75: Double?
        public var p90: Double?
        public var p95: Double?
        public var mean: Double?

        enum CodingKeys: String, CodingKey { case count, p50, p75, p90, p95, mean }
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(count, forKey: .count)
            try c.encode(p50, forKey: .p50)
            try c.encode(p75, forKey: .p75)
            try c.encode(p90, forKey: .p90)
            try c.encode(p95, forKey: .p95)
            try c.encode(mean, forKey: .mean)
        }
    }

    public struct Bin: Sendable, Hashable, Codable {
        public var fromSeconds: Double
        public var toSeconds: Double
        public var users: Int
        enum CodingKeys: String, CodingKey { case fromSeconds = "from_seconds", toSeconds = "to_seconds", users }
    }

    public struct StepRow: Sendable, Hashable, Codable {
        public var step: String
        /// The lane, or nil for a step every lane shares (the rows before the fork).
        public var lane: String?
        public var kind: String
        public var title: String?
        /// `when`/flag of the step on this lane, as written in the definition.
        public var condition: String?
        /// Started users (of this lane) who viewed the step.
        public var reached: Int
        /// Started users whose expected path holds the step and who reached the step before it.
        public var eligible: Int
        /// Eligible users who reached it.
        public var eligibleReached: Int
        /// Users the flow passed over at this step by condition or flag: never a drop-off.
        public var skipped: Int
        /// Abandoned users whose current step is this one.
        public var dropped: Int
        /// reached / reached of the previous step on the lane that has no condition or flag
        /// (a gated step is no baseline: most users were never shown it).
        public var conversionFromPrevious: Double?
        /// eligible users who reached it / eligible.
        public var conversionFromEligible: Double?
        public var medianSecondsOnStep: Double?
        /// False for steps before the flow's first tracked step (no telemetry).
        public var tracked: Bool
        /// In a group's report (`--by`): conversion from eligible against the rest of the selection.
        public var versusRest: Comparison?

        enum CodingKeys: String, ComparisonKeys {
            case step, lane, kind, title, condition, reached, eligible
            case eligibleReached = "eligible_reached", skipped, dropped
            case conversionFromPrevious = "conversion_from_previous"
            case conversionFromEligible = "conversion_from_eligible"
            case medianSecondsOnStep = "median_seconds_on_step", tracked
            case differenceFromRest = "difference_from_rest", pValue = "p_value", pValueAdjusted = "p_value_adjusted"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(step, forKey: .step)
            try c.encode(lane, forKey: .lane)
            try c.encode(kind, forKey: .kind)
            try c.encode(title, forKey: .title)
            try c.encode(condition, forKey: .condition)
            try c.encode(reached, forKey: .reached)
            try c.encode(eligible, forKey: .eligible)
            try c.encode(eligibleReached, forKey: .eligibleReached)
            try c.encode(skipped, forKey: .skipped)
            try c.encode(dropped, forKey: .dropped)
            try c.encode(conversionFromPrevious, forKey: .conversionFromPrevious)
            try c.encode(conversionFromEligible, forKey: .conversionFromEligible)
            try c.encode(medianSecondsOnStep, forKey: .medianSecondsOnStep)
            try c.encode(tracked, forKey: .tracked)
            try versusRest?.encode(into: &c)
        }
    }

    /// A segment's rate against the rest of the selection (the selection's users not in it).
    public struct Comparison: Sendable, Hashable, Codable {
        /// The segment's rate minus the rest's (a fraction: 0.052 is 5.2 points); nil when
        /// either side has no users.
        public var difference: Double?
        /// Two-sided, two-proportion z-test; nil when either side has too few users
        /// (`Statistics.minimumUsersForTest`).
        public var pValue: Double?
        /// Benjamini–Hochberg adjusted across the segments shown.
        public var pValueAdjusted: Double?

        public init(difference: Double?, pValue: Double?, pValueAdjusted: Double? = nil) {
            self.difference = difference
            self.pValue = pValue
            self.pValueAdjusted = pValueAdjusted
        }
    }

    public struct Dropoff: Sendable, Hashable, Codable {
        public var step: String
        public var lane: String?
        public var dropped: Int
        /// dropped / all abandoned users.
        public var shareOfAbandoned: Double
        enum CodingKeys: String, CodingKey { case step, lane, dropped, shareOfAbandoned = "share_of_abandoned" }
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(step, forKey: .step)
            try c.encode(lane, forKey: .lane)
            try c.encode(dropped, forKey: .dropped)
            try c.encode(shareOfAbandoned, forKey: .shareOfAbandoned)
        }
    }

    public struct Group: Sendable, Hashable, Codable {
        /// The group's value; with two dimensions, the pair joined by `pairSeparator`.
        public var value: String
        /// Each dimension's value (named as in `by_dimensions`); empty only for a report's own
        /// "all" row in the HTML tables.
        public var values: [String: String]
        public var report: FunnelReport
        /// Completion rate against the rest of the selection.
        public var versusRest: Comparison?
        /// For a time bucket (`--by day`, `--by week`): false while its users may still
        /// complete (it ended less than the idle window before as-of); nil for other groups.
        public var settled: Bool?

        enum CodingKeys: String, ComparisonKeys {
            case value, values, report, settled
            case differenceFromRest = "difference_from_rest", pValue = "p_value", pValueAdjusted = "p_value_adjusted"
        }

        /// Between the two values of a pair in `value`.
        public static let pairSeparator = " · "

        public init(value: String, values: [String: String] = [:], report: FunnelReport, versusRest: Comparison? = nil,
                    settled: Bool? = nil) {
            self.value = value
            self.values = values
            self.report = report
            self.versusRest = versusRest
            self.settled = settled
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            value = try c.decode(String.self, forKey: .value)
            values = try c.decodeIfPresent([String: String].self, forKey: .values) ?? [:]
            report = try c.decode(FunnelReport.self, forKey: .report)
            settled = try c.decodeIfPresent(Bool.self, forKey: .settled)
            versusRest = try Comparison.decodeIfPresent(from: c)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(value, forKey: .value)
            if !values.isEmpty { try c.encode(values, forKey: .values) }
            try c.encode(report, forKey: .report)
            if let settled { try c.encode(settled, forKey: .settled) }
            try versusRest?.encode(into: &c)
        }
    }

    enum CodingKeys: String, CodingKey {
        case flow, flowTitle = "flow_title", cohort, filters, since, until, asOf = "as_of"
        case idleSeconds = "idle_seconds", users, completionRate = "completion_rate"
        case completionRateCI95 = "completion_rate_ci95"
        case timeToCompleteSeconds = "time_to_complete_seconds"
        case timeToCompleteHistogram = "time_to_complete_histogram"
        case steps, topDropoffs = "top_dropoffs", by, byDimensions = "by_dimensions", groups, drift, lanes
        case periodComparison = "comparison"
        case adjacentPairs = "adjacent_pairs"
    }

    /// Which users the report counts, as of when.
    public var selection: ReportSelection {
        ReportSelection(flow: flow, flowTitle: flowTitle, cohort: cohort, filters: filters, since: since, until: until, asOf: asOf,
                        idleSeconds: idleSeconds)
    }

    public func encode(to encoder: any Encoder) throws {
        try selection.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(users, forKey: .users)
        try c.encode(completionRate, forKey: .completionRate)
        try c.encode(completionRateCI95, forKey: .completionRateCI95)
        try c.encode(timeToCompleteSeconds, forKey: .timeToCompleteSeconds)
        try c.encode(timeToCompleteHistogram, forKey: .timeToCompleteHistogram)
        try c.encode(lanes, forKey: .lanes)
        try c.encode(steps, forKey: .steps)
        try c.encode(topDropoffs, forKey: .topDropoffs)
        if let by { try c.encode(by, forKey: .by) }
        if let byDimensions { try c.encode(byDimensions, forKey: .byDimensions) }
        if let groups { try c.encode(groups, forKey: .groups) }
        if let drift { try c.encode(drift, forKey: .drift) }
        if let periodComparison { try c.encode(periodComparison, forKey: .periodComparison) }
        if let adjacentPairs { try c.encode(adjacentPairs, forKey: .adjacentPairs) }
    }
}

// Decoding in an extension keeps StepRow's memberwise initializer.
extension FunnelReport.StepRow {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        step = try c.decode(String.self, forKey: .step)
        lane = try c.decodeIfPresent(String.self, forKey: .lane)
        kind = try c.decode(String.self, forKey: .kind)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        condition = try c.decodeIfPresent(String.self, forKey: .condition)
        reached = try c.decode(Int.self, forKey: .reached)
        eligible = try c.decode(Int.self, forKey: .eligible)
        eligibleReached = try c.decode(Int.self, forKey: .eligibleReached)
        skipped = try c.decode(Int.self, forKey: .skipped)
        dropped = try c.decode(Int.self, forKey: .dropped)
        conversionFromPrevious = try c.decodeIfPresent(Double.self, forKey: .conversionFromPrevious)
        conversionFromEligible = try c.decodeIfPresent(Double.self, forKey: .conversionFromEligible)
        medianSecondsOnStep = try c.decodeIfPresent(Double.self, forKey: .medianSecondsOnStep)
        tracked = try c.decode(Bool.self, forKey: .tracked)
        versusRest = try FunnelReport.Comparison.decodeIfPresent(from: c)
    }
}

/// The keys a comparison with the rest is written under, in a group and in its step rows.
protocol ComparisonKeys: CodingKey {
    static var differenceFromRest: Self { get }
    static var pValue: Self { get }
    static var pValueAdjusted: Self { get }
}

extension FunnelReport.Comparison {
    /// Writes the three keys (each may be null).
    func encode<K: ComparisonKeys>(into c: inout KeyedEncodingContainer<K>) throws {
        try c.encode(difference, forKey: .differenceFromRest)
        try c.encode(pValue, forKey: .pValue)
        try c.encode(pValueAdjusted, forKey: .pValueAdjusted)
    }

    /// The comparison written under the three keys; nil when the object has none.
    static func decodeIfPresent<K: ComparisonKeys>(from c: KeyedDecodingContainer<K>) throws -> Self? {
        guard c.contains(.pValue) else { return nil }
        return Self(difference: try c.decodeIfPresent(Double.self, forKey: .differenceFromRest),
                    pValue: try c.decodeIfPresent(Double.self, forKey: .pValue),
                    pValueAdjusted: try c.decodeIfPresent(Double.self, forKey: .pValueAdjusted))
    }
}
