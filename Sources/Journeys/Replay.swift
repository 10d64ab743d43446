import FunnelModel

/// One user's journey explained event by event: what the fold made of each event, the
/// expected path and why steps are off it, and the verdict the report counts.
public struct Replay: Sendable, Hashable, Codable {
    public var userID: String
    public var flow: String
    public var flowTitle: String?
    public var asOf: String
    public var idleSeconds: Double
    public var state: String
    public var currentStep: String?
    public var lane: String?
    public var laneReason: String
    public var startedAt: String?
    public var completedAt: String?
    public var secondsToComplete: Double?
    public var events: [Entry]
    public var path: [Journey.PathStep]
    /// `goalWeight not on the path: weightGoal = maintain`.
    public var skipped: [String]
    public var deviations: [String]
    /// Events after the as-of time: shown, not folded.
    public var afterAsOf: Int
    /// One sentence: what the report counts this user as, and why.
    public var verdict: String

    public struct Entry: Sendable, Hashable, Codable {
        public var seq: Int64
        public var eventID: String
        public var event: String
        public var ts: String
        public var step: String?
        public var sinceStartSeconds: Double?
        public var sincePreviousSeconds: Double?
        /// What the fold made of the event.
        public var notes: [String]
        /// late, out_of_order, future, clock_jump, duplicate copies…
        public var flags: [String]
        /// `left the app for 5 h 12 min` before this event.
        public var gap: String?
        /// Copies of this event that arrived again and were dropped as duplicates.
        public var duplicateCopies: [String]
        /// Whether the fold used the event (false past `--at`/as-of).
        public var folded: Bool
        /// The original line as it arrived.
        public var line: String

        package enum CodingKeys: String, CodingKey {
            case seq, eventID = "event_id", event, ts, step
            case sinceStartSeconds = "since_start_seconds", sincePreviousSeconds = "since_previous_seconds"
            case notes, flags, gap, duplicateCopies = "duplicate_copies", folded, line
        }
    }

    package enum CodingKeys: String, CodingKey {
        case userID = "user_id", flow, flowTitle = "flow_title", asOf = "as_of", idleSeconds = "idle_seconds"
        case state, currentStep = "current_step", lane, laneReason = "lane_reason", startedAt = "started_at"
        case completedAt = "completed_at", secondsToComplete = "seconds_to_complete", events, path, skipped
        case deviations, afterAsOf = "after_as_of", verdict
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(userID, forKey: .userID)
        try c.encode(flow, forKey: .flow)
        try c.encode(flowTitle, forKey: .flowTitle)
        try c.encode(asOf, forKey: .asOf)
        try c.encode(idleSeconds, forKey: .idleSeconds)
        try c.encode(state, forKey: .state)
        try c.encode(currentStep, forKey: .currentStep)
        try c.encode(lane, forKey: .lane)
        try c.encode(laneReason, forKey: .laneReason)
        try c.encode(startedAt, forKey: .startedAt)
        try c.encode(completedAt, forKey: .completedAt)
        try c.encode(secondsToComplete, forKey: .secondsToComplete)
        try c.encode(events, forKey: .events)
        try c.encode(path, forKey: .path)
        try c.encode(skipped, forKey: .skipped)
        try c.encode(deviations, forKey: .deviations)
        try c.encode(afterAsOf, forKey: .afterAsOf)
        try c.encode(verdict, forKey: .verdict)
    }
}

extension Replay {
    /// A gap this long between two events reads as leaving the app.
    public static let gapSeconds: Double = 30 * 60
    /// An event this much earlier than the one that arrived before it has a suspicious clock
    /// (out-of-order batches of one day stay well under it).
    public static let clockJumpSeconds: Double = 3 * 86_400

    /// Replays `events` of one user and flow through the same fold the projections use.
    /// - Parameters:
    ///   - asOf: the time of the verdict (`--at`, else the store's as-of); later events are
    ///     listed but not folded.
    ///   - duplicates: for an event id, where its dropped copies arrived.
    public static func build(events: [RecordedEvent], definition: FlowDefinition?, asOf: Timestamp,
                             idleSeconds: Double, duplicates: [String: [String]] = [:]) -> Replay? {
        let ordered = events.sorted(by: RecordedEvent.foldOrder)
        guard let first = ordered.first else { return nil }
        // Arrival flags: an event that arrived after one that happened later is late.
        var minSeqAfter = Int64.max
        var late = [Bool](repeating: false, count: ordered.count)
        for i in stride(from: ordered.count - 1, through: 0, by: -1) {
            late[i] = ordered[i].seq > minSeqAfter
            minSeqAfter = min(minSeqAfter, ordered[i].seq)
        }
        let byArrival = events.sorted { $0.seq < $1.seq }
        var previousByArrival: [Int64: RecordedEvent] = [:]
        for (i, e) in byArrival.enumerated() where i > 0 { previousByArrival[e.seq] = byArrival[i - 1] }

        var fold = JourneyFold(userID: first.event.userID, flow: first.event.flow, definition: definition)
        var entries: [Entry] = []
        var previousTime: Timestamp?
        var startTime: Timestamp?
        var afterAsOf = 0
        for (i, r) in ordered.enumerated() {
            let e = r.event
            let folded = e.time <= asOf
            var notes: [String] = []
            if folded {
                notes = fold.apply(r)
            } else {
                afterAsOf += 1
            }
            if startTime == nil, e.known == .started { startTime = e.time }
            var flags: [String] = []
            if late[i] && (i == 0 || !late[i - 1]) {
                var run = 1
                while i + run < late.count && late[i + run] { run += 1 }
                flags.append(run == 1 ? "arrived late: after events that happened later"
                             : "arrived late: this and the next \(run - 1) events came after events that happened later (an out-of-order batch)")
            }
            if !folded { flags.append("after as-of \(asOf): not counted") }
            if let prev = previousByArrival[r.seq],
               Double(prev.event.time.micros - e.time.micros) / 1_000_000 > clockJumpSeconds {
                flags.append("suspicious clock: \(DurationText.spoken(Double(prev.event.time.micros - e.time.micros) / 1_000_000)) before the event that arrived just before it")
            }
            let copies = duplicates[e.id] ?? []
            if !copies.isEmpty { flags.append("arrived \(copies.count + 1) times: duplicates dropped") }
            let sincePrevious = previousTime.map { Double(e.time.micros - $0.micros) / 1_000_000 }
            let gap = sincePrevious.flatMap { $0 >= gapSeconds ? "left the app for \(DurationText.spoken($0))" : nil }
            entries.append(Entry(
                seq: r.seq, eventID: e.id, event: e.name, ts: e.time.rfc3339(), step: e.step,
                sinceStartSeconds: startTime.map { Double(e.time.micros - $0.micros) / 1_000_000 },
                sincePreviousSeconds: sincePrevious, notes: notes, flags: flags, gap: gap,
                duplicateCopies: copies, folded: folded, line: r.line))
            previousTime = e.time
        }
        let journey = fold.finish()
        let state = journey.state(asOf: asOf, idleSeconds: idleSeconds)
        let skipped = journey.path.compactMap { p -> String? in
            guard p.status == .skipped, let reason = p.reason else { return nil }
            return "\(p.step) not on the path: \(reason)"
        }
        return Replay(
            userID: journey.userID, flow: journey.flow, flowTitle: definition?.title, asOf: asOf.description,
            idleSeconds: idleSeconds, state: journey.started ? state.rawValue : "not_started",
            currentStep: journey.currentStep, lane: journey.lane, laneReason: journey.laneReason,
            startedAt: journey.startedAt?.rfc3339(), completedAt: journey.completedAt?.rfc3339(),
            secondsToComplete: journey.secondsToComplete, events: entries, path: Array(journey.path),
            skipped: skipped, deviations: journey.deviations, afterAsOf: afterAsOf,
            verdict: verdict(journey, state: state, asOf: asOf, idleSeconds: idleSeconds)
                + offDefinition(journey, definition))
    }

    /// Where the journey departs from its definition, for the verdict: "" when it does not.
    package static func offDefinition(_ j: Journey, _ definition: FlowDefinition?) -> String {
        guard let definition else { return "" }
        let vocabulary = FlowVocabulary(definition)
        let parts = DriftFact.facts(of: j, vocabulary: vocabulary).compactMap { $0.explanation(vocabulary) }
        return parts.isEmpty ? "" : "; off the definition: " + parts.joined(separator: "; ")
    }

    package static func verdict(_ j: Journey, state: Journey.State, asOf: Timestamp, idleSeconds: Double) -> String {
        guard j.started else {
            return "not counted: no onboarding.started for this flow (reports count started users only)"
        }
        let quiet = Double(asOf.micros - j.lastEventAt.micros) / 1_000_000
        switch state {
        case .completed:
            return "completed in \(DurationText.spoken(j.secondsToComplete ?? 0))" + (j.lane.map { " on lane \($0)" } ?? "")
        case .inProgress:
            return "in progress at \(j.currentStep ?? "no step yet"): last event \(DurationText.spoken(max(quiet, 0))) before as-of, within the \(DurationText.spoken(idleSeconds)) idle window"
        case .abandoned:
            return "abandoned at \(j.currentStep ?? "no step") (counted as a drop-off there): last event \(DurationText.spoken(quiet)) before as-of, past the \(DurationText.spoken(idleSeconds)) idle window"
        }
    }
}
