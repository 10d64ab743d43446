import FunnelModel

/// What a question about some steps of a flow reads of a journey (`funnel explain`): its
/// times, current step, lane, a few answers, flags, app version and platform, and for each
/// step asked about its place on the expected path and its prompt outcomes. Read from the
/// stored journey without building the whole journey (`JourneyGlance+Binary`), so that it
/// costs a fraction of decoding tens of thousands of journeys.
public struct JourneyGlance: Sendable, Hashable {
    /// Which steps and answers to read.
    public struct Request: Sendable, Hashable {
        public let steps: [String]
        public let keys: [String]

        public init(steps: [String], keys: [String]) {
            self.steps = steps
            self.keys = keys
        }
    }

    /// A step's place on the expected path.
    public struct Place: Sendable, Hashable {
        public var status: Journey.PathStep.Status
        public var reached: Bool
        public var eligible: Bool
    }

    public var userID: String
    public var startedAt: Int64?
    public var completedAt: Int64?
    public var firstEventAt: Int64
    public var lastEventAt: Int64
    public var currentStep: String?
    public var lane: String?
    /// The answers to `Request.keys`, in their order; nil when not given.
    public var answers: [JSONValue?]
    public var flags: [String: JSONValue]
    public var appVersion: String?
    public var platform: String?
    /// Per step of `Request.steps`: its place on the path (nil: not on it).
    public var places: [Place?]
    /// Per step of `Request.steps`: `Journey.promptOutcomes` there.
    public var outcomes: [[String]]
    /// `Journey.lastSeqOnCurrentStep`.
    public var lastSeqOnCurrentStep: Int64?

    /// The glance at a whole journey.
    public init(_ j: Journey, request: Request) {
        userID = j.userID
        startedAt = j.startedAt?.micros
        completedAt = j.completedAt?.micros
        firstEventAt = j.firstEventAt.micros
        lastEventAt = j.lastEventAt.micros
        currentStep = j.currentStep
        lane = j.lane
        answers = request.keys.map { j.values[$0] }
        flags = j.flags.dictionary
        appVersion = j.appVersion
        platform = j.platform
        places = request.steps.map { step in
            j.pathStep(step).map { Place(status: $0.status, reached: $0.reached, eligible: $0.eligible) }
        }
        outcomes = request.steps.map { j.promptOutcomes[$0] ?? [] }
        lastSeqOnCurrentStep = j.lastSeqOnCurrentStep
    }

    /// A glance at no journey, with room for `request`'s answers and steps: to read into.
    package init(empty request: Request) {
        userID = ""
        startedAt = nil
        completedAt = nil
        firstEventAt = 0
        lastEventAt = 0
        currentStep = nil
        lane = nil
        answers = [JSONValue?](repeating: nil, count: request.keys.count)
        flags = [:]
        appVersion = nil
        platform = nil
        places = [Place?](repeating: nil, count: request.steps.count)
        outcomes = [[String]](repeating: [], count: request.steps.count)
        lastSeqOnCurrentStep = nil
    }

    /// `Journey.state` of this journey.
    public func state(asOf: Timestamp, idleSeconds: Double) -> Journey.State {
        Journey.state(completedAt: completedAt, lastEventAt: lastEventAt, asOf: asOf.micros, idleSeconds: idleSeconds)
    }

    /// What cohort and `--where` conditions are evaluated against, with the answers read
    /// (`request.keys`: those the conditions name must be among them).
    public func conditionContext(_ request: Request, flagDefaults: [String: Bool]) -> ConditionContext {
        var values: [String: JSONValue] = [:]
        for (key, answer) in zip(request.keys, answers) { values[key] = answer }
        return ConditionContext(values: values, flags: flags, appVersion: appVersion, platform: platform,
                                startDate: startedAt.map { Timestamp(micros: $0).utcDay }, flagDefaults: flagDefaults)
    }
}
