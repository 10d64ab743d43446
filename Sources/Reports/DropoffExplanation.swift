/// What explains the drop-off at one step (`funnel explain`, and a section of the HTML
/// report): among the users eligible for the step who reached it, which attributes are
/// over-represented among those who dropped there, and what they did last on it. Its JSON
/// form is documented in docs/report-json.md; field names there are the CodingKeys here.
public struct DropoffExplanation: Sendable, Hashable, Encodable {
    public var flow: String
    public var flowTitle: String
    public var step: String
    public var stepTitle: String?
    public var stepKind: String
    /// `--lane`, or nil: the users of every lane that has the step.
    public var lane: String?
    /// The lanes whose users are counted.
    public var lanes: [String]
    /// The step comes before the lanes part (or the flow has one lane): every user's row.
    public var shared: Bool
    public var cohort: String?
    public var filters: [String]
    public var since: String?
    public var until: String?
    public var asOf: String
    public var idleSeconds: Double
    public var users: Users
    /// Dropped there, of the users compared (`users.compared`).
    public var dropRate: Double?
    public var dropRateCI95: FunnelReport.Interval?
    /// Every value of every attribute, strongest evidence first.
    public var attributes: [Attribute]
    /// The last event on the step of each user who dropped there, tallied.
    public var lastEvents: [LastEvent]

    public struct Users: Sendable, Hashable, Encodable {
        /// Users whose expected path holds the step and who reached the step before it.
        public var eligible: Int
        /// Eligible users who reached the step.
        public var reached: Int
        /// Abandoned users whose current step is this one: the report's `dropped`.
        public var dropped: Int
        /// Of `dropped`, those not eligible for the step (off their expected path): not compared.
        public var droppedNotEligible: Int
        /// Eligible users still in progress on the step: neither dropped nor gone on, not compared.
        public var inProgress: Int
        /// Eligible users who reached the step and did not drop there and are not in progress on it.
        public var wentOn: Int

        /// The users the attributes compare: dropped there (eligible) and gone on.
        public var compared: Int { dropped - droppedNotEligible + wentOn }
        /// The eligible users who dropped there.
        public var droppedCompared: Int { dropped - droppedNotEligible }

        enum CodingKeys: String, CodingKey {
            case eligible, reached, dropped, droppedNotEligible = "dropped_not_eligible", inProgress = "in_progress"
            case wentOn = "went_on", compared
        }

        public init(eligible: Int, reached: Int, dropped: Int, droppedNotEligible: Int, inProgress: Int, wentOn: Int) {
            self.eligible = eligible
            self.reached = reached
            self.dropped = dropped
            self.droppedNotEligible = droppedNotEligible
            self.inProgress = inProgress
            self.wentOn = wentOn
        }

        /// Every count, `compared` among them (no optionals: none is ever null).
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            for (key, value) in [(CodingKeys.eligible, eligible), (.reached, reached), (.dropped, dropped),
                                 (.droppedNotEligible, droppedNotEligible), (.inProgress, inProgress), (.wentOn, wentOn),
                                 (.compared, compared)] {
                try c.encode(value, forKey: key)
            }
        }
    }

    /// One value of one attribute, against the rest of the users compared.
    public struct Attribute: Sendable, Hashable, Encodable {
        /// What the attribute is (`Kind`'s raw values: `answer`, `flag`, ...).
        public var kind: String
        /// The answer's key or the flag's name; nil for the other kinds.
        public var key: String?
        public var value: String
        public var users: Int
        public var dropped: Int
        public var dropRate: Double?
        public var restUsers: Int
        public var restDropped: Int
        /// The drop rate minus the rest's (a fraction), with its p-value, adjusted across
        /// every value of the explanation.
        public var versusRest: FunnelReport.Comparison
        /// The 95 % interval of the difference (Newcombe's, from the two Wilson intervals).
        public var differenceCI95: FunnelReport.Interval?

        public enum Kind: String, Sendable, CaseIterable {
            /// A collected answer (`step_completed`) given before the step.
            case answer
            /// A flag of the definition, on or off (its default when no event says).
            case flag
            case appVersion = "app_version"
            case platform
            case lane
            /// What a permission prompt or a sign-in on the step came to (`PromptOutcome`).
            case prompt
        }

        enum CodingKeys: String, ComparisonKeys {
            case kind, key, value, users, dropped, dropRate = "drop_rate", restUsers = "rest_users"
            case restDropped = "rest_dropped", differenceCI95 = "difference_ci95"
            case differenceFromRest = "difference_from_rest", pValue = "p_value", pValueAdjusted = "p_value_adjusted"
        }

        public init(kind: String, key: String?, value: String, users: Int, dropped: Int, restUsers: Int, restDropped: Int,
                    versusRest: FunnelReport.Comparison, differenceCI95: FunnelReport.Interval?) {
            self.kind = kind
            self.key = key
            self.value = value
            self.users = users
            self.dropped = dropped
            self.dropRate = users == 0 ? nil : Double(dropped) / Double(users)
            self.restUsers = restUsers
            self.restDropped = restDropped
            self.versusRest = versusRest
            self.differenceCI95 = differenceCI95
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(kind, forKey: .kind)
            try c.encode(key, forKey: .key)
            try c.encode(value, forKey: .value)
            try c.encode(users, forKey: .users)
            try c.encode(dropped, forKey: .dropped)
            try c.encode(dropRate, forKey: .dropRate)
            try c.encode(restUsers, forKey: .restUsers)
            try c.encode(restDropped, forKey: .restDropped)
            try c.encode(differenceCI95, forKey: .differenceCI95)
            try versusRest.encode(into: &c)
        }
    }

    /// Dropped users whose last event on the step was this one (name and key properties).
    public struct LastEvent: Sendable, Hashable, Encodable {
        /// The event name, without the `onboarding.` prefix of the v1 names.
        public var event: String
        /// Its properties as text, without free-form answers (`DropoffScope.freeFormKeys`).
        public var properties: [String: String]
        public var users: Int
        /// users / the dropped users.
        public var share: Double

        public init(event: String, properties: [String: String], users: Int, share: Double) {
            self.event = event
            self.properties = properties
            self.users = users
            self.share = share
        }

        /// `permission_result granted=false permission=notifications`.
        public var text: String {
            ([event] + properties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
        }
    }

    /// The keys besides the selection's (`ReportSelection`).
    enum CodingKeys: String, CodingKey {
        case step, stepTitle = "step_title", stepKind = "step_kind", lane, lanes, shared, users
        case dropRate = "drop_rate", dropRateCI95 = "drop_rate_ci95", attributes, lastEvents = "last_events"
    }

    /// Which users the explanation counts, as of when.
    public var selection: ReportSelection {
        ReportSelection(flow: flow, flowTitle: flowTitle, cohort: cohort, filters: filters, since: since, until: until, asOf: asOf,
                        idleSeconds: idleSeconds)
    }

    public func encode(to encoder: any Encoder) throws {
        try selection.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(step, forKey: .step)
        try c.encode(stepTitle, forKey: .stepTitle)
        try c.encode(stepKind, forKey: .stepKind)
        try c.encode(lane, forKey: .lane)
        try c.encode(lanes, forKey: .lanes)
        try c.encode(shared, forKey: .shared)
        try c.encode(users, forKey: .users)
        try c.encode(dropRate, forKey: .dropRate)
        try c.encode(dropRateCI95, forKey: .dropRateCI95)
        try c.encode(attributes, forKey: .attributes)
        try c.encode(lastEvents, forKey: .lastEvents)
    }
}
