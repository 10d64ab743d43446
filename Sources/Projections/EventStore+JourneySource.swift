import FunnelModel
import EventStore
import StoreCore
import Journeys

/// The SQLite store's journeys: the journeys projection (`ProjectionStore`), its rows decoded
/// as they are read, a journey with events after as-of folded again from the log.
extension EventStore: JourneySource {
    public var log: any EventLogReading { self }

    public func forEachFacts(flow: String, definition: FlowDefinition, asOf: Timestamp,
                             _ body: (JourneyFacts) throws -> Void) throws -> Bool {
        try ProjectionStore.forEachFacts(flow: flow, definition: definition, store: self, asOf: asOf, body)
    }

    public func forEachFacts(flow: String, definition: FlowDefinition, asOf: Timestamp, parts: Int,
                             start: @escaping @Sendable (Int) -> Void,
                             _ body: @escaping @Sendable (Int, JourneyFacts) -> Void) throws -> Bool {
        try ProjectionStore.forEachFacts(flow: flow, definition: definition, store: self, asOf: asOf, parts: parts,
                                         start: start, body)
    }

    public func forEachJourney(flow: String, definition: FlowDefinition, asOf: Timestamp,
                               _ body: (Journey) throws -> Void) throws {
        try ProjectionStore.forEachJourney(flow: flow, definition: definition, store: self, asOf: asOf, body)
    }

    public func forEachGlance(flow: String, definition: FlowDefinition, asOf: Timestamp, request: JourneyGlance.Request,
                              _ body: (JourneyGlance) throws -> Void) throws {
        try ProjectionStore.forEachGlance(flow: flow, definition: definition, store: self, asOf: asOf, request: request, body)
    }

    public func forEachGlance(flow: String, definition: FlowDefinition, asOf: Timestamp, request: JourneyGlance.Request,
                              parts: Int, start: @escaping @Sendable (Int) -> Void,
                              _ body: @escaping @Sendable (Int, JourneyGlance) -> Void) throws {
        try ProjectionStore.forEachGlance(flow: flow, definition: definition, store: self, asOf: asOf, request: request,
                                          parts: parts, start: start, body)
    }
}
