/// The event names of the v1 contract (schemas/event.schema.json). Unprefixed spellings
/// (`sign_in_succeeded`) are the same events; `normalized(_:)` maps them to the prefixed form.
public enum EventName: String, Sendable, CaseIterable {
    case started = "onboarding.started"
    case stepViewed = "onboarding.step_viewed"
    case stepCompleted = "onboarding.step_completed"
    case stepBack = "onboarding.step_back"
    case signInStarted = "onboarding.sign_in_started"
    case signInSucceeded = "onboarding.sign_in_succeeded"
    case signedUp = "onboarding.signed_up"
    case signInFailed = "onboarding.sign_in_failed"
    case permissionPrompted = "onboarding.permission_prompted"
    case permissionResult = "onboarding.permission_result"
    case completed = "onboarding.completed"

    public static let prefix = "onboarding."

    /// The canonical spelling of a name: a known name without its prefix gains it; any other
    /// name is returned unchanged (it is stored and counted as unplanned).
    public static func normalized(_ name: String) -> String {
        if name.hasPrefix(prefix) { return name }
        if let known = EventName(rawValue: prefix + name) { return known.rawValue }
        return name
    }

    /// The known event this name stands for, prefixed or not.
    public init?(normalizing name: String) {
        guard let known = EventName.spellings[name] else { return nil }
        self = known
    }

    /// Both spellings of every known name: one lookup per event instead of string building.
    private static let spellings: [String: EventName] = {
        var out: [String: EventName] = [:]
        for name in allCases {
            out[name.rawValue] = name
            out[String(name.rawValue.dropFirst(prefix.count))] = name
        }
        return out
    }()
}

/// The client context an event carries: app version, platform and feature flags.
public struct EventContext: Sendable, Hashable {
    public var appVersion: String?
    public var platform: String?
    public var flags: [String: JSONValue]
    /// Every other context field, kept so nothing that arrived is lost.
    public var other: [String: JSONValue]

    public init(appVersion: String? = nil, platform: String? = nil,
                flags: [String: JSONValue] = [:], other: [String: JSONValue] = [:]) {
        self.appVersion = appVersion
        self.platform = platform
        self.flags = flags
        self.other = other
    }
}

/// An event as decoded and validated from one log line, before it is stored.
public struct Event: Sendable, Hashable {
    public var id: String
    /// The name as it arrived (`sign_in_succeeded` or `onboarding.sign_in_succeeded`).
    public var rawName: String
    public var userID: String
    public var time: Timestamp
    public var flow: String
    public var step: String?
    public var properties: [String: JSONValue]
    public var context: EventContext

    public init(id: String, name: String, userID: String, time: Timestamp, flow: String,
                step: String? = nil, properties: [String: JSONValue] = [:],
                context: EventContext = EventContext()) {
        self.id = id
        self.rawName = name
        self.userID = userID
        self.time = time
        self.flow = flow
        self.step = step
        self.properties = properties
        self.context = context
    }

    /// The canonical (prefixed) name.
    public var name: String { EventName.normalized(rawName) }
    /// The known event this is, or nil for an event outside the v1 vocabulary.
    public var known: EventName? { EventName(normalizing: rawName) }
}

/// An event as the store recorded it: the arrival sequence number (1, 2, … in the order the
/// store accepted events), the decoded event and the original line, byte for byte as text.
public struct RecordedEvent: Sendable, Hashable {
    public var seq: Int64
    public var event: Event
    public var line: String

    public init(seq: Int64, event: Event, line: String) {
        self.seq = seq
        self.event = event
        self.line = line
    }
}

extension RecordedEvent {
    /// Event-time order, ties by arrival: the one order every fold uses.
    public static func foldOrder(_ a: RecordedEvent, _ b: RecordedEvent) -> Bool {
        if a.event.time.micros != b.event.time.micros { return a.event.time.micros < b.event.time.micros }
        return a.seq < b.seq
    }
}

/// What a fold reads of an event: a recorded event, or the lean copy a projection keeps of
/// one while an input is read (without its id, user, flow and line).
public protocol FoldableEvent {
    var seq: Int64 { get }
    var time: Timestamp { get }
    var rawName: String { get }
    var step: String? { get }
    var properties: [String: JSONValue] { get }
    var context: EventContext { get }
    /// The known event this is, or nil for an event outside the v1 vocabulary.
    var known: EventName? { get }
    /// A number for the event's context: an event with the same number as the event folded
    /// before it has the same context (so the fold need not apply it again); -1 when unknown.
    var contextID: Int32 { get }
    /// The code of the event's step (`FlowVocabulary.stepCodes`, given as `codes`): -1 for
    /// no step or one the codes do not have.
    func stepCode(in codes: [String: Int32]) -> Int32
    /// The event's step code when the event carries it (worked out once for many events);
    /// nil: `stepCode(in:)` looks it up.
    var listedStepCode: Int32? { get }
    /// The drift keys (`DriftKey.value`) of the event's answers the fold's definition does not
    /// list, when the event carries them (worked out once for many events); nil: the fold
    /// checks each answer itself.
    var unlistedAnswers: [String]? { get }
    /// Calls `body` with each of the event's answers by the code of the fold's definition's
    /// key, when the event carries them (worked out once for many events; every key has a
    /// code); false (`body` not called): the fold sets each of `properties` by its key.
    func forEachAnswerCode(_ body: (_ code: Int32, _ value: JSONValue) -> Void) -> Bool
    /// Calls `body` with each flag of the event's context by the code of the fold's
    /// definition's flag, when the event carries them (worked out once for many events; every
    /// flag has a code); false (`body` not called): the fold sets each flag by its name.
    func forEachFlagCode(_ body: (_ code: Int32, _ value: JSONValue) -> Void) -> Bool
}

extension FoldableEvent {
    /// The canonical (prefixed) name.
    public var name: String { EventName.normalized(rawName) }
    /// The known event this is, or nil for an event outside the v1 vocabulary.
    public var known: EventName? { EventName(normalizing: rawName) }
    public var contextID: Int32 { -1 }
    public var listedStepCode: Int32? { nil }
    public var unlistedAnswers: [String]? { nil }
    public func forEachAnswerCode(_ body: (_ code: Int32, _ value: JSONValue) -> Void) -> Bool { false }
    public func forEachFlagCode(_ body: (_ code: Int32, _ value: JSONValue) -> Void) -> Bool { false }
    public func stepCode(in codes: [String: Int32]) -> Int32 {
        guard let step else { return -1 }
        return codes[step] ?? -1
    }
}

extension RecordedEvent: FoldableEvent {
    public var time: Timestamp { event.time }
    public var rawName: String { event.rawName }
    public var step: String? { event.step }
    public var properties: [String: JSONValue] { event.properties }
    public var context: EventContext { event.context }
}

extension Array where Element: FoldableEvent {
    /// The indices in fold order. Sorts small keys, not the events: an event is costly to move.
    /// (Inlinable: specialized where it is used, it reads each event in place, without a copy.)
    @inlinable
    public var foldOrderIndices: [Int] {
        withUnsafeBufferPointer { b in FoldOrder.indices(count: b.count) { FoldOrder.Key(time: b[$0].time.micros, seq: b[$0].seq) } }
    }
}
