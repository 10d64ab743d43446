import FunnelModel
import Journeys
import StoreCore

/// Everything `funnel replay` needs: the user, optionally one flow, the as-of (default: the
/// log's) and the idle window.
public struct ReplayRequest: Sendable {
    public var user: String
    public var flow: String?
    public var at: Timestamp?
    public var idleSeconds: Double

    public init(user: String, flow: String? = nil, at: Timestamp? = nil, idleSeconds: Double = Journey.defaultIdleSeconds) {
        self.user = user
        self.flow = flow
        self.at = at
        self.idleSeconds = idleSeconds
    }

    /// The user's replays read from the log, one per flow begun by as-of (in flow order). A
    /// flow neither the definitions nor the log knows, a user with no events, an empty log or
    /// a user who had begun no flow by as-of is a `RequestError` saying so.
    public func run(log: any EventLogReading, definitions: [FlowDefinition], now: Timestamp) throws -> Replays {
        if let flow, !definitions.contains(where: { $0.id == flow }), try !log.flows().contains(flow) {
            let known = Set(definitions.map(\.id)).union(try log.flows()).sorted()
            throw RequestError("unknown flow \"\(flow)\"; known flows: \(known.joined(separator: ", "))")
        }
        let all = try log.events(user: user, flow: flow)
        guard !all.isEmpty else { throw try RequestError.unknownUser(user, flow: flow, in: log) }
        guard let asOf = try at ?? log.defaultAsOf(now: now) else { throw RequestError("the store holds no events") }
        let (events, notes) = try startedBy(asOf, all)
        let copies = try log.duplicates(ofEventIDs: events.map(\.event.id)).mapValues { list in
            list.map { "\($0.inputPath) line \($0.line) (ingested \($0.arrivedAt))" }
        }
        let replays = Array(Set(events.map(\.event.flow))).sorted().compactMap { f in
            Replay.build(events: events.filter { $0.event.flow == f }, definition: definitions.first { $0.id == f },
                         asOf: asOf, idleSeconds: idleSeconds, duplicates: copies)
        }
        return Replays(replays: replays, notes: notes)
    }

    /// The events of the flows the user had started by `asOf`, and a note for each flow begun
    /// later (left out); when every one is, that is the answer (an error).
    private func startedBy(_ asOf: Timestamp, _ events: [RecordedEvent]) throws -> ([RecordedEvent], [String]) {
        var first: [String: Timestamp] = [:]
        for e in events { first[e.event.flow] = min(first[e.event.flow] ?? e.event.time, e.event.time) }
        let later = first.filter { $0.value > asOf }.sorted { $0.key < $1.key }
        if later.count == first.count, let earliest = later.map(\.value).min() {
            throw RequestError("user \(user) had not started yet at \(asOf)" + (flow.map { " in flow \($0)" } ?? "")
                               + ": the first event is at \(earliest)")
        }
        let notes = later.map { f, t in "user \(user) had not started flow \(f) yet at \(asOf) (first event at \(t))" }
        let left = Set(later.map(\.key))
        return (left.isEmpty ? events : events.filter { !left.contains($0.event.flow) }, notes)
    }
}

/// What `funnel replay` shows: a user's replays, one per flow, and the notes on flows left out.
public struct Replays: Sendable, Hashable {
    public var replays: [Replay]
    /// One line for each flow the user had not begun by as-of.
    public var notes: [String]
}

extension RequestError {
    /// A user with no events (in `flow`), with the closest user ids the log has.
    public static func unknownUser(_ user: String, flow: String?, in log: any EventLogReading) throws -> RequestError {
        let close = try log.userIDs(matching: user, limit: 5).filter { $0 != user }
        var message = "no events for user \"\(user)\"" + (flow.map { " in flow \($0)" } ?? "")
        if !close.isEmpty { message += "; did you mean: " + close.joined(separator: ", ") }
        return RequestError(message)
    }
}
