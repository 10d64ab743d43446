import FunnelModel

/// One user's journey through one flow, folded from the log: the projection every report
/// counts and every replay explains.
public struct Journey: Sendable, Hashable, Codable {
    public var userID: String
    public var flow: String
    /// First `onboarding.started` (event time); nil when the user never started.
    public var startedAt: Timestamp?
    /// The step the user started on (the `step` of the first `onboarding.started`).
    public var startStep: String?
    /// First `onboarding.completed`.
    public var completedAt: Timestamp?
    public var firstEventAt: Timestamp
    public var lastEventAt: Timestamp
    /// The step of the latest `step_viewed` (event time, ties by arrival).
    public var currentStep: String?
    /// The lane the collected values pick, nil while they cannot tell.
    public var lane: String?
    public var laneReason: String
    /// Values collected by `step_completed`, latest answer wins.
    public var values: KeyedValues
    /// Flags as the latest event carrying each one said.
    public var flags: KeyedValues
    public var appVersion: String?
    public var platform: String?
    /// Every step the user viewed, in order of first view.
    public var visits: [StepVisit]
    /// The expected path for the answers and flags above.
    public var path: JourneyPath
    /// Counts of what the journey holds.
    public var events: Int
    public var unplanned: Int
    public var backNavigations: Int
    public var signInFailures: Int
    /// Where the journey leaves the flow graph (a step seen without the one before it, an
    /// unknown step or event).
    public var deviations: [String]
    /// When the journey first showed each answer, event or flag its definition does not know
    /// (`DriftKey`); empty without a definition.
    public var driftSeen: [String: Timestamp] = [:]
    /// What the prompts on each step came to, by step (`PromptOutcome`): the latest
    /// permission prompt or answer, and every sign-in failure's reason.
    public var promptOutcomes: [String: [String]] = [:]
    /// The seq of the last event (fold order) whose `step` is `currentStep`: what a user who
    /// left there did last, read without scanning their events. Nil in journeys stored
    /// before it was kept (version 4 and earlier).
    public var lastSeqOnCurrentStep: Int64?
    /// The user's step views in fold order, consecutive views of one step as one run: each
    /// run's step and the time of its first view (what `funnel paths` reads as moves).
    /// Empty in journeys stored before it was kept (version 5 and earlier).
    public var viewRuns: [ViewRun] = []
    /// The views that came after a silence longer than `Tuning.keptSilenceMicros` since the
    /// view before them (the longest gap between two consecutive events in between): where
    /// `funnel paths` finds returns. Empty in journeys stored before version 7.
    public var silences: [Silence] = []
    /// The longest gap between consecutive events since the latest view (microseconds; 0
    /// before the first view): what the next view's silence is, for a fold that resumes.
    public var silenceSinceView: Int64 = 0
    /// The seq of the last event in fold order; nil in journeys stored before version 7.
    public var lastSeq: Int64?

    /// A view after a silence: the run it is in (it starts it, or views its step again) and
    /// the silence before it.
    public struct Silence: Sendable, Hashable, Codable {
        public var run: Int
        public var startsRun: Bool
        public var micros: Int64

        public init(run: Int, startsRun: Bool, micros: Int64) {
            self.run = run
            self.startsRun = startsRun
            self.micros = micros
        }
    }

    /// A run of views of one step: its step and first view.
    public struct ViewRun: Sendable, Hashable, Codable {
        public var step: String
        public var at: Timestamp

        public init(step: String, at: Timestamp) {
            self.step = step
            self.at = at
        }
    }

    public struct StepVisit: Sendable, Hashable, Codable {
        public var step: String
        public var firstViewedAt: Timestamp
        public var views: Int
        /// Seconds from the first view of the step to the next view of another step; nil
        /// while the user has not moved on.
        public var secondsOnStep: Double?
    }

    public struct PathStep: Sendable, Hashable, Codable {
        public enum Status: String, Sendable, Hashable, Codable {
            case shown, skipped, undetermined, beforeStart = "before_start"
        }
        public var step: String
        public var status: Status
        /// Why the step is skipped or undetermined (`weightGoal = maintain`).
        public var reason: String?
        public var reached: Bool
        /// On the path and the step before it on the path was reached (DESIGN.md).
        public var eligible: Bool
    }

    public enum State: String, Sendable, Hashable, Codable, CaseIterable {
        case completed
        case inProgress = "in_progress"
        case abandoned
    }

    public var started: Bool { startedAt != nil }

    /// The idle window reports use unless told otherwise: 24 h.
    public static let defaultIdleSeconds: Double = 86_400

    /// The state as of `asOf` with an idle window of `idleSeconds` (DESIGN.md "state").
    public func state(asOf: Timestamp, idleSeconds: Double) -> State {
        Journey.state(completedAt: completedAt?.micros, lastEventAt: lastEventAt.micros, asOf: asOf.micros, idleSeconds: idleSeconds)
    }

    /// The state rule on bare times (microseconds): completed by `asOf`, else in progress
    /// while the last event is within the idle window before `asOf`, else abandoned.
    @inlinable
    public static func state(completedAt: Int64?, lastEventAt: Int64, asOf: Int64, idleSeconds: Double) -> State {
        if let c = completedAt, c <= asOf { return .completed }
        let idleMicros = Int64(idleSeconds * 1_000_000)
        return lastEventAt >= asOf - idleMicros ? .inProgress : .abandoned
    }

    /// Time to complete: first completed − first started.
    public var secondsToComplete: Double? {
        guard let s = startedAt, let c = completedAt else { return nil }
        return Double(c.micros - s.micros) / 1_000_000
    }

    public func visit(_ step: String) -> StepVisit? { visits.first { $0.step == step } }
    public func pathStep(_ step: String) -> PathStep? { path.first { $0.step == step } }

    /// What cohort and `--where` conditions are evaluated against.
    public func conditionContext(flagDefaults: [String: Bool] = [:]) -> ConditionContext {
        ConditionContext(values: values.dictionary, flags: flags.dictionary, appVersion: appVersion, platform: platform,
                         startDate: startedAt?.utcDay, flagDefaults: flagDefaults)
    }
}
