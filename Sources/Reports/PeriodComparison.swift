import FunnelModel

/// `--compare`: another period of the same selection set beside the report's own (`since` to
/// `until` of the report): its users, each step's conversion from eligible in both periods and
/// the difference, and the completion rate's difference with its 95 % interval and the pooled
/// two-proportion z-test `--by` uses. Differences are the report's period minus this one, in
/// points (percentage points).
public struct PeriodComparison: Sendable, Hashable, Codable {
    public var since: String
    public var until: String
    /// False while this period's users may still complete (it ended less than the idle window
    /// before as-of), as the trend buckets say.
    public var settled: Bool
    /// The same of the report's own period.
    public var currentSettled: Bool
    public var users: FunnelReport.Users
    public var completionRate: Double?
    public var completionRateCI95: FunnelReport.Interval?
    public var steps: [Step]
    public var completionDifference: Difference

    public struct Step: Sendable, Hashable, Codable {
        public var step: String
        public var lane: String?
        /// This period's eligible users, those of them who reached the step, and the rate.
        public var eligible: Int
        public var eligibleReached: Int
        public var conversionFromEligible: Double?
        /// The report's own period's rate.
        public var currentConversionFromEligible: Double?
        public var difference: Difference

        enum CodingKeys: String, CodingKey {
            case step, lane, eligible, eligibleReached = "eligible_reached"
            case conversionFromEligible = "conversion_from_eligible"
            case currentConversionFromEligible = "current_conversion_from_eligible", difference
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(step, forKey: .step)
            try c.encode(lane, forKey: .lane)
            try c.encode(eligible, forKey: .eligible)
            try c.encode(eligibleReached, forKey: .eligibleReached)
            try c.encode(conversionFromEligible, forKey: .conversionFromEligible)
            try c.encode(currentConversionFromEligible, forKey: .currentConversionFromEligible)
            try c.encode(difference, forKey: .difference)
        }
    }

    /// A difference of two rates in points, its 95 % interval (Newcombe's hybrid score) and the
    /// two-sided p-value of the pooled two-proportion z-test; each nil when a side has no
    /// users (the p-value also under `Statistics.minimumUsersForTest`).
    public struct Difference: Sendable, Hashable, Codable {
        public var points: Double?
        public var ciLow: Double?
        public var ciHigh: Double?
        public var pValue: Double?

        enum CodingKeys: String, CodingKey { case points, ciLow = "ci_low", ciHigh = "ci_high", pValue = "p_value" }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(points, forKey: .points)
            try c.encode(ciLow, forKey: .ciLow)
            try c.encode(ciHigh, forKey: .ciHigh)
            try c.encode(pValue, forKey: .pValue)
        }

        /// `x1` of `n1` (the report's period) against `x2` of `n2` (the compared one).
        init(_ x1: Int, of n1: Int, against x2: Int, of n2: Int) {
            let both = n1 > 0 && n2 > 0
            points = both ? 100 * (Double(x1) / Double(n1) - Double(x2) / Double(n2)) : nil
            let ci = Statistics.differenceInterval(x1, of: n1, against: x2, of: n2)
            ciLow = ci.map { 100 * $0.low }
            ciHigh = ci.map { 100 * $0.high }
            pValue = Statistics.twoProportionPValue(x1, of: n1, against: x2, of: n2)
        }
    }

    enum CodingKeys: String, CodingKey {
        case since, until, settled, currentSettled = "current_settled", users, completionRate = "completion_rate"
        case completionRateCI95 = "completion_rate_ci95", steps, completionDifference = "completion_difference"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(since, forKey: .since)
        try c.encode(until, forKey: .until)
        try c.encode(settled, forKey: .settled)
        try c.encode(currentSettled, forKey: .currentSettled)
        try c.encode(users, forKey: .users)
        try c.encode(completionRate, forKey: .completionRate)
        try c.encode(completionRateCI95, forKey: .completionRateCI95)
        try c.encode(steps, forKey: .steps)
        try c.encode(completionDifference, forKey: .completionDifference)
    }

    /// `current` (the report) against `other`, the same selection over the compared period;
    /// each of the report's steps matched by step and lane.
    init(_ current: FunnelReport, against other: FunnelReport) {
        since = other.since ?? ""
        until = other.until ?? ""
        settled = PeriodComparison.isSettled(other)
        currentSettled = PeriodComparison.isSettled(current)
        users = other.users
        completionRate = other.completionRate
        completionRateCI95 = other.completionRateCI95
        steps = current.steps.filter(\.tracked).map { row in
            let o = other.steps.first { $0.step == row.step && $0.lane == row.lane }
            let eligible = o?.eligible ?? 0, reached = o?.eligibleReached ?? 0
            return Step(step: row.step, lane: row.lane, eligible: eligible, eligibleReached: reached,
                        conversionFromEligible: eligible == 0 ? nil : Double(reached) / Double(eligible),
                        currentConversionFromEligible: row.conversionFromEligible,
                        difference: Difference(row.eligibleReached, of: row.eligible, against: reached, of: eligible))
        }
        completionDifference = Difference(current.users.completed, of: current.users.started,
                                          against: other.users.completed, of: other.users.started)
    }

    /// A period is settled when it ended at least the idle window before as-of.
    static func isSettled(_ r: FunnelReport) -> Bool {
        guard let until = r.until.flatMap({ Timestamp.parse($0) }), let asOf = Timestamp.parse(r.asOf) else { return false }
        return until.micros + Int64(r.idleSeconds * 1_000_000) <= asOf.micros
    }
}
