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
        let tallies = try DropoffTally.tallies([scope], definition: definition, query: query, store: store)
        guard let tally = tallies.first else { throw RequestError("nothing to explain") }
        if let nobody = tally.nobodyEligible { throw nobody }
        return try tally.explanation(store: store)
    }
}

extension ReportRequest {
    /// What explains the report's top drop-off points that some user is eligible for (at
    /// most `limit`, most dropped first), counted in one pass over the journeys: the HTML
    /// report's section. A row of users on no lane has nobody eligible and is left out.
    public func explanations(of report: FunnelReport, store: EventStore, definitions: [FlowDefinition], now: Timestamp,
                             limit: Int = 3) throws -> [DropoffExplanation] {
        let definition = try ReportRequest.resolveFlow(flow ?? report.flow, cohort: cohort, definitions: definitions,
                                                       storeFlows: try store.flows())
        let query = try self.query(for: definition, defaultAsOf: try ProjectionStore.defaultAsOf(store: store, now: now))
        let scopes = report.topDropoffs.compactMap { d -> DropoffScope? in
            guard d.lane != FunnelReport.undecidedLane else { return nil }
            return try? DropoffScope(step: d.step, lane: definition.lanes.count == 1 ? nil : d.lane, definition: definition)
        }
        let tallies = try DropoffTally.tallies(scopes, definition: definition, query: query, store: store)
        return try tallies.filter { $0.nobodyEligible == nil }.prefix(limit).map { try $0.explanation(store: store) }
    }
}

extension DropoffTally {
    /// One tally per scope, filled in one pass over the flow's journeys (as of the query's
    /// as-of: journeys with later events are folded again up to it).
    static func tallies(_ scopes: [DropoffScope], definition: FlowDefinition, query: ReportQuery,
                        store: EventStore) throws -> [DropoffTally] {
        var tallies = scopes.map { DropoffTally(definition: definition, query: query, scope: $0) }
        guard !tallies.isEmpty else { return [] }
        try ProjectionStore.forEachJourney(flow: definition.id, definition: definition, store: store, asOf: query.asOf) { j in
            for i in tallies.indices { tallies[i].add(j) }
        }
        return tallies
    }

    /// The explanation, with the last events of the users who dropped read from the log.
    func explanation(store: any EventLogReading) throws -> DropoffExplanation {
        let flow = definition.id
        let last = try DropoffExplanation.lastEvents(of: droppedUsers, scope: scope, asOf: query.asOf) { user in
            try store.events(user: user, flow: flow)
        }
        return explanation(lastEvents: last)
    }
}
