import FunnelModel
import StoreCore

/// Journeys folded from a log at read time, for a store without a journeys projection. The
/// log hands out a flow's events one user at a time (consecutive events of one user and flow
/// are a group), each group is folded with `JourneyFold` up to as-of, as the projection folds
/// it, and handed on as the projection hands it. Memory holds one user's events.
public struct FoldedJourneys: JourneySource {
    public let log: any EventLogReading

    public init(log: any EventLogReading) {
        self.log = log
    }

    public func forEachFacts(flow: String, definition: FlowDefinition, asOf: Timestamp,
                             _ body: (JourneyFacts) throws -> Void) throws -> Bool {
        guard JourneyFacts.supports(definition) else { return false }
        let folder = FlowFolder(definition)
        try forEachFolded(flow: flow, folder: folder, asOf: asOf) { j in
            if let facts = folder.facts(of: j) { try body(facts) }
        }
        return true
    }

    public func forEachJourney(flow: String, definition: FlowDefinition, asOf: Timestamp,
                               _ body: (Journey) throws -> Void) throws {
        try forEachFolded(flow: flow, folder: FlowFolder(definition), asOf: asOf, body)
    }

    public func forEachGlance(flow: String, definition: FlowDefinition, asOf: Timestamp, request: JourneyGlance.Request,
                              _ body: (JourneyGlance) throws -> Void) throws {
        try forEachFolded(flow: flow, folder: FlowFolder(definition), asOf: asOf) { try body(JourneyGlance($0, request: request)) }
    }

    /// Folds each group of the flow's events up to `asOf` as the log hands it out
    /// (`forEachUser`); a user with no event by then is left out.
    package func forEachFolded(flow: String, folder: FlowFolder, asOf: Timestamp, _ body: (Journey) throws -> Void) throws {
        try log.forEachUser(flow: flow) { group in
            guard let journey = folder.journey(of: group, until: asOf) else { return }
            try body(journey)
        }
    }
}
