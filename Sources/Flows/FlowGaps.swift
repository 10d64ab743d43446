/// What a definition with shape faults does not tell: the meaning checks that depend on it
/// are skipped, so each fault is reported once, at its own path, and not again as a
/// follow-on error somewhere else.
struct FlowGaps: Sendable, Hashable {
    /// Ids standing in for steps and lane entries whose id cannot be read.
    var placeholders: Set<String> = []
    /// Steps whose kind cannot be read (a lane holding one may well end).
    var unknownKinds: Set<String> = []
    /// `steps` or some step's id cannot be read: a lane entry may name that step.
    var stepIDsUnknown = false
    /// `lanes`, a lane's `steps` or an entry cannot be read: a step may be on that lane.
    var laneStepsUnknown = false
    /// Lanes (by index) whose `steps` or one of their entries cannot be read.
    var unreadableLaneSteps: Set<Int> = []
    /// Some step's `collects` cannot be read: a condition may read what it collects.
    var collectsUnknown = false
    /// `flags` or some flag's id cannot be read: a condition may use that flag.
    var flagsUnknown = false
    /// Lanes (by index) whose `when` is there but cannot be read.
    var unreadableLaneWhen: Set<Int> = []
    /// Cohorts (by index) whose `where` is missing or cannot be read.
    var unreadableCohortWhere: Set<Int> = []
}
