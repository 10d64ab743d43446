import FunnelModel

/// How users really moved through a flow (`funnel paths`): their moves between steps, each
/// against their expected path, where they last viewed a step, where they came back after
/// leaving, and optionally the time between two steps. Its JSON form is the machine contract
/// documented in docs/report-json.md; field names there are the CodingKeys here.
public struct PathsReport: Sendable, Hashable, Encodable {
    /// The flow, cohort, filters, window, as-of and idle window: top-level fields in JSON.
    public var selection: ReportSelection
    public var users: Users
    /// Every step viewed, in flow order (steps the definition does not have last, by name).
    public var steps: [Step]
    /// Moves from one step to another, by step left (flow order), most users first.
    public var transitions: [Transition]
    /// Per step, the users whose last view it was.
    public var exits: [Exit]
    /// Per step left before a gap longer than the idle window, where users came back.
    public var returns: [Return]
    /// With `--from` and `--to`.
    public var timeBetween: TimeBetween?
    /// The time between every two steps one after the other on a lane of the definition
    /// (each pair once), in lane order; pairs nobody viewed in that order left out.
    public var adjacentPairs: [TimeBetween]

    /// The kind of a move against the user's expected path (lane, answers, flags).
    public enum MoveKind: String, Sendable, Hashable, Encodable, CaseIterable {
        /// To the next step of the path.
        case forward
        /// To a later step of the path, passing over one or more.
        case skip
        /// To an earlier step of the path.
        case back
        /// From or to a step not on the path (or not in the definition).
        case offPath = "off_path"
    }

    /// Where a user came back after a gap longer than the idle window, against the step
    /// they left.
    public enum ReturnKind: String, Sendable, Hashable, Encodable, CaseIterable {
        /// The step they left.
        case same
        /// The first step they ever viewed (when it is not the one they left).
        case first
        /// Another step earlier on their path.
        case earlier
        /// A step later on their path.
        case later
        /// The step left or the step came back to is not on their path.
        case offPath = "off_path"
    }

    public struct Users: Sendable, Hashable, Encodable {
        /// Started users of the selection.
        public var started: Int
        /// Those who viewed at least one step.
        public var viewed: Int
        /// Those who made at least one move.
        public var moved: Int
    }

    public struct Step: Sendable, Hashable, Encodable {
        public var step: String
        /// Whether the flow definition has the step.
        public var inFlow: Bool
        /// Users who viewed it.
        public var users: Int
        /// Users who moved from it to another step at least once.
        public var movedOn: Int

        enum CodingKeys: String, CodingKey { case step, inFlow = "in_flow", users, movedOn = "moved_on" }
    }

    public struct Transition: Sendable, Hashable, Encodable {
        public var from: String
        public var to: String
        public var kind: MoveKind
        /// Distinct users who made the move at least once.
        public var users: Int
        /// How many times it was made.
        public var moves: Int
    }

    public struct Exit: Sendable, Hashable, Encodable {
        public var step: String
        /// Users whose last view was of this step: completed + in progress + abandoned.
        public var users: Int
        public var completed: Int
        public var inProgress: Int
        public var abandoned: Int
        /// The abandoned users' last event (fold order; the view itself when nothing came
        /// after it), by name and properties, most users first; `share` of `abandoned`.
        public var abandonedLastEvents: [DropoffExplanation.LastEvent]

        enum CodingKeys: String, CodingKey {
            case step, users, completed, inProgress = "in_progress", abandoned, abandonedLastEvents = "abandoned_last_events"
        }
    }

    public struct Return: Sendable, Hashable, Encodable {
        /// The step the users were on when they left (their latest view before the gap).
        public var step: String
        /// Distinct users who came back after leaving this step.
        public var users: Int
        /// Returns counted: a user may leave and come back more than once.
        public var returns: Int
        /// The returns by where they came back (`ReturnKind`), every kind present.
        public var cameBack: [String: Int]

        enum CodingKeys: String, CodingKey { case step, users, returns, cameBack = "came_back" }
    }

    public struct TimeBetween: Sendable, Hashable, Codable {
        public var from: String
        public var to: String
        /// Users who viewed `from` and later `to`.
        public var users: Int
        public var p50: Double?
        public var p75: Double?
        public var p90: Double?
        public var p95: Double?
        public var mean: Double?
        public var histogram: [FunnelReport.Bin]

        enum CodingKeys: String, CodingKey { case from, to, users, p50, p75, p90, p95, mean, histogram }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(from, forKey: .from)
            try c.encode(to, forKey: .to)
            try c.encode(users, forKey: .users)
            try c.encode(p50, forKey: .p50)
            try c.encode(p75, forKey: .p75)
            try c.encode(p90, forKey: .p90)
            try c.encode(p95, forKey: .p95)
            try c.encode(mean, forKey: .mean)
            try c.encode(histogram, forKey: .histogram)
        }
    }

    enum CodingKeys: String, CodingKey {
        case users, steps, transitions, exits, returns, timeBetween = "time_between", adjacentPairs = "adjacent_pairs"
    }

    public func encode(to encoder: any Encoder) throws {
        try selection.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(users, forKey: .users)
        try c.encode(steps, forKey: .steps)
        try c.encode(transitions, forKey: .transitions)
        try c.encode(exits, forKey: .exits)
        try c.encode(returns, forKey: .returns)
        try c.encode(timeBetween, forKey: .timeBetween)
        try c.encode(adjacentPairs, forKey: .adjacentPairs)
    }
}
