import FunnelModel
import EventStore
import StoreCore
import Journeys

/// The SQLite store's journeys: the journeys projection (`ProjectionStore`), its rows decoded
/// as they are read, a journey with events after as-of folded again from the log, read
/// through `StoreJourneys` (which can also tell a progress of those folds).
extension EventStore: JourneySource {
    public var log: any EventLogReading { self }

    public func forEachFacts(flow: String, definition: FlowDefinition, asOf: Timestamp,
                             _ body: (JourneyFacts) throws -> Void) throws -> Bool {
        try StoreJourneys(store: self).forEachFacts(flow: flow, definition: definition, asOf: asOf, body)
    }

    public func accumulateFacts<A: JourneyAccumulator>(flow: String, definition: FlowDefinition, asOf: Timestamp,
                                                       into blank: A) throws -> A? where A.Element == JourneyFacts {
        try StoreJourneys(store: self).accumulateFacts(flow: flow, definition: definition, asOf: asOf, into: blank)
    }

    public func forEachJourney(flow: String, definition: FlowDefinition, asOf: Timestamp,
                               _ body: (Journey) throws -> Void) throws {
        try StoreJourneys(store: self).forEachJourney(flow: flow, definition: definition, asOf: asOf, body)
    }

    public func forEachGlance(flow: String, definition: FlowDefinition, asOf: Timestamp, request: JourneyGlance.Request,
                              _ body: (JourneyGlance) throws -> Void) throws {
        try StoreJourneys(store: self).forEachGlance(flow: flow, definition: definition, asOf: asOf, request: request, body)
    }

    public func accumulateGlances<A: JourneyAccumulator>(flow: String, definition: FlowDefinition, asOf: Timestamp,
                                                         request: JourneyGlance.Request, into blank: A) throws -> A
        where A.Element == JourneyGlance {
        try StoreJourneys(store: self).accumulateGlances(flow: flow, definition: definition, asOf: asOf, request: request,
                                                         into: blank)
    }
}
