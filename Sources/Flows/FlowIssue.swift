import FunnelModel

/// One thing wrong with a flow definition, with the JSON path of the value at fault
/// (`$.lanes[1].steps[4]`).
public typealias FlowIssue = DefinitionIssue<FlowIssueKind>

/// A flow file that could not be loaded: where it is and every issue found in it.
public typealias FlowLoadError = DefinitionLoadError<FlowIssueKind>

/// The kinds of fault `flows check` reports.
public enum FlowIssueKind: String, DefinitionIssueKind, CaseIterable {
    /// The file cannot be read.
    case unreadable
    /// The text is not JSON.
    case syntax
    /// A field is missing, has the wrong type, or is not part of the format.
    case shape
    /// Two steps, lanes, flags or cohorts share an id.
    case duplicateID = "duplicate-id"
    /// A lane lists a step that `steps` does not define.
    case unknownStep = "unknown-step"
    /// A step in `steps` is on no lane.
    case unreachableStep = "unreachable-step"
    /// A step appears twice on one lane: the lane would loop.
    case cycle
    /// A condition cannot be read.
    case badCondition = "bad-condition"
    /// A condition reads a value no step collects, or one collected only later.
    case uncollectedValue = "uncollected-value"
    /// A condition compares with a value the collecting step never sends.
    case unknownValue = "unknown-value"
    /// A flag is used but not declared in `flags`.
    case undeclaredFlag = "undeclared-flag"
    /// A lane has no step of kind terminal.
    case noTerminal = "no-terminal"
    /// A lane's `when` is missing or does not read the flow's `laneKey`.
    case laneCondition = "lane-condition"

    public static let definition = "flow"
}
