import FunnelModel
import Projections
import EventStore

/// Everything `funnel explain` needs: the selection as `funnel report` takes it (flow,
/// cohort, filters, window, as-of, idle window), the step, and optionally one lane.
public struct ExplainRequest: Sendable {
    public var selection: ReportRequest
    public var step: String
    public var lane: String?

    public init(selection: ReportRequest, step: String, lane: String? = nil) {
        self.selection = selection
        self.step = step
        self.lane = lane
    }

    /// Checks what can be checked without the store: the selection's options and, when the
    /// flow is named, the step and lane.
    public func validate(definitions: [FlowDefinition]) throws {
        try selection.validate(definitions: definitions)
        if selection.flow != nil {
            let definition = try ReportRequest.resolveFlow(selection.flow, cohort: selection.cohort, definitions: definitions, storeFlows: [])
            _ = try DropoffScope(step: step, lane: lane, definition: definition)
        }
    }

    /// Explains the drop-off on the store's projections; a step nobody in the selection is
    /// eligible for is a `RequestError` saying why.
    public func run(store: EventStore, definitions: [FlowDefinition], now: Timestamp) throws -> DropoffExplanation {
        let definition = try ReportRequest.resolveFlow(selection.flow, cohort: selection.cohort, definitions: definitions,
                                                       storeFlows: try store.flows())
        let query = try selection.query(for: definition, defaultAsOf: try ProjectionStore.defaultAsOf(store: store, now: now))
        let scope = try DropoffScope(step: step, lane: lane, definition: definition)
        let tallies = try DropoffTally.tallies([scope], definition: definition, query: query,
                                               forEachGlance: { try DropoffTally.forEachGlance(definition, query, store, $0, $1) })
        guard let tally = tallies.first else { throw RequestError("nothing to explain") }
        if let nobody = tally.nobodyEligible { throw nobody }
        return try tally.explanation { try store.lastEvents(onStep: scope.step, flow: definition.id, users: $0, notAfter: query.asOf) }
    }
}

extension ReportRequest {
    /// What explains the report's top drop-off points (`DropoffExplanation.explanations`),
    /// from the store: the HTML report's section.
    public func explanations(of report: FunnelReport, store: EventStore, definitions: [FlowDefinition], now: Timestamp,
                             limit: Int = 3) throws -> [DropoffExplanation] {
        let definition = try ReportRequest.resolveFlow(flow ?? report.flow, cohort: cohort, definitions: definitions,
                                                       storeFlows: try store.flows())
        let query = try self.query(for: definition, defaultAsOf: try ProjectionStore.defaultAsOf(store: store, now: now))
        return try DropoffExplanation.explanations(of: report, definition: definition, query: query, limit: limit,
                                                   forEachGlance: { try DropoffTally.forEachGlance(definition, query, store, $0, $1) },
                                                   lastEvents: { step, users in
                                                       try store.lastEvents(onStep: step, flow: definition.id, users: users, notAfter: query.asOf)
                                                   })
    }
}

extension DropoffExplanation {
    /// What explains a report's top drop-off points that some user is eligible for (at most
    /// `limit`, most dropped first), counted in one pass over the journeys. A row of users
    /// on no lane has nobody eligible and is left out.
    ///
    /// - Parameters:
    ///   - forEachGlance: hands what a request asks of every journey of the flow to its argument.
    ///   - lastEvents: for a step and users, each one's last event on it (`EventLogReading.lastEvents`).
    public static func explanations(of report: FunnelReport, definition: FlowDefinition, query: ReportQuery, limit: Int,
                                    forEachGlance: (JourneyGlance.Request, (JourneyGlance) -> Void) throws -> Void,
                                    lastEvents: (String, [String]) throws -> [String: RecordedEvent]) throws -> [DropoffExplanation] {
        let scopes = report.topDropoffs.compactMap { d -> DropoffScope? in
            guard d.lane != FunnelReport.undecidedLane else { return nil }
            return try? DropoffScope(step: d.step, lane: definition.lanes.count == 1 ? nil : d.lane, definition: definition)
        }
        let tallies = try DropoffTally.tallies(scopes, definition: definition, query: query, forEachGlance: forEachGlance)
        return try tallies.filter { $0.nobodyEligible == nil }.prefix(limit).map { t in
            try t.explanation { try lastEvents(t.scope.step, $0) }
        }
    }
}

extension DropoffTally {
    /// One tally per scope, filled in one pass over the journeys: `forEachGlance` hands what
    /// the request asks of every journey of the flow to its argument.
    public static func tallies(_ scopes: [DropoffScope], definition: FlowDefinition, query: ReportQuery,
                               forEachGlance: (JourneyGlance.Request, (JourneyGlance) -> Void) throws -> Void) rethrows -> [DropoffTally] {
        let request = request(for: scopes, query: query)
        var tallies = scopes.indices.map {
            DropoffTally(definition: definition, query: query, scope: scopes[$0], request: request, stepIndex: $0)
        }
        guard !tallies.isEmpty else { return [] }
        try forEachGlance(request) { g in
            for i in tallies.indices { tallies[i].add(g) }
        }
        return tallies
    }

    /// The glances of every journey of the flow in the store as of the query's as-of
    /// (journeys with later events are folded again up to it).
    static func forEachGlance(_ definition: FlowDefinition, _ query: ReportQuery, _ store: EventStore,
                              _ request: JourneyGlance.Request, _ body: (JourneyGlance) -> Void) throws {
        try ProjectionStore.forEachGlance(flow: definition.id, definition: definition, store: store, asOf: query.asOf,
                                          request: request, body)
    }

    /// The explanation, with the last events on the step of the users who dropped there
    /// (`lastEvents`: by user, for the users given, as `EventLogReading.lastEvents` gives them).
    public func explanation(lastEvents: ([String]) throws -> [String: RecordedEvent]) rethrows -> DropoffExplanation {
        explanation(lastEvents: DropoffExplanation.lastEvents(of: droppedUsers, scope: scope, last: try lastEvents(droppedUsers)))
    }
}
