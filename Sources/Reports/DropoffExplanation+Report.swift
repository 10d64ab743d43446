import FunnelModel
import Journeys

extension DropoffExplanation {
    /// What explains a report's top drop-off points that some user is eligible for (at most
    /// `limit`, most dropped first), counted in one pass over the journeys. A row of users
    /// on no lane has nobody eligible and is left out.
    ///
    /// - Parameters:
    ///   - glances: adds what a request asks of every journey of the flow into the blank
    ///     tallies given (`DropoffTally.tallies`).
    ///   - lastEvents: for a step and the users who dropped there, each one's last event on it
    ///     (`EventLogReading.lastEvents(onStep:flow:of:notAfter:)`).
    public static func explanations(of report: FunnelReport, definition: FlowDefinition, query: ReportQuery, limit: Int,
                                    glances: DropoffTally.Glances,
                                    lastEvents: (String, [DropoffTally.Dropped]) throws -> [String: RecordedEvent]) throws -> [DropoffExplanation] {
        let scopes = report.topDropoffs.compactMap { d -> DropoffScope? in
            guard d.lane != FunnelReport.undecidedLane else { return nil }
            return try? DropoffScope(step: d.step, lane: definition.lanes.count == 1 ? nil : d.lane, definition: definition)
        }
        let tallies = try DropoffTally.tallies(scopes, definition: definition, query: query, glances: glances)
        return try tallies.filter { $0.nobodyEligible == nil }.prefix(limit).map { t in
            try t.explanation { try lastEvents(t.scope.step, $0) }
        }
    }
}
