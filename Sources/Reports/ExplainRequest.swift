import FunnelModel
import Journeys

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

    /// Explains the drop-off on the source's journeys; a step nobody in the selection is
    /// eligible for is a `RequestError` saying why.
    public func run(source: any JourneySource, definitions: [FlowDefinition], now: Timestamp) throws -> DropoffExplanation {
        let (definition, query) = try selection.resolve(in: source, definitions: definitions, now: now)
        let scope = try DropoffScope(step: step, lane: lane, definition: definition)
        let tallies = try DropoffTally.tallies([scope], definition: definition, query: query,
                                               glances: DropoffTally.glances(definition, query, source))
        guard let tally = tallies.first else { throw RequestError("nothing to explain") }
        if let nobody = tally.nobodyEligible { throw nobody }
        return try tally.explanation { try source.log.lastEvents(onStep: scope.step, flow: definition.id, of: $0, notAfter: query.asOf) }
    }
}

extension ReportRequest {
    /// What explains the report's top drop-off points (`DropoffExplanation.explanations`),
    /// from the source's journeys: the HTML report's section.
    public func explanations(of report: FunnelReport, source: any JourneySource, definitions: [FlowDefinition], now: Timestamp,
                             limit: Int = 3) throws -> [DropoffExplanation] {
        var request = self
        request.flow = flow ?? report.flow
        let (definition, query) = try request.resolve(in: source, definitions: definitions, now: now)
        return try DropoffExplanation.explanations(of: report, definition: definition, query: query, limit: limit,
                                                   glances: DropoffTally.glances(definition, query, source),
                                                   lastEvents: { step, dropped in
                                                       try source.log.lastEvents(onStep: step, flow: definition.id, of: dropped, notAfter: query.asOf)
                                                   })
    }
}
