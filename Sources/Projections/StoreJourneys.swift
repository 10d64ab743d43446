import FunnelModel
import EventStore
import StoreCore
import Journeys

/// The SQLite store's journeys (`ProjectionStore`), telling `refolds`, when given, how many
/// journeys a read folds again from the log (past its as-of, or folded with another
/// definition) as it folds them: what a progress bar shows. `EventStore` reads through one
/// without `refolds`.
public struct StoreJourneys: JourneySource {
    public let store: EventStore
    public let refolds: RefoldProgress?

    public init(store: EventStore, refolds: RefoldProgress? = nil) {
        self.store = store
        self.refolds = refolds
    }

    public var log: any EventLogReading { store }

    public func forEachFacts(flow: String, definition: FlowDefinition, asOf: Timestamp,
                             _ body: (JourneyFacts) throws -> Void) throws -> Bool {
        try ProjectionStore.forEachFacts(flow: flow, definition: definition, store: store, asOf: asOf, refolds: refolds, body)
    }

    /// Read in `Tuning.factShares` shares at once (`ProjectionStore.accumulateFacts`).
    public func accumulateFacts<A: JourneyAccumulator>(flow: String, definition: FlowDefinition, asOf: Timestamp,
                                                       into blank: A) throws -> A? where A.Element == JourneyFacts {
        try ProjectionStore.accumulateFacts(flow: flow, definition: definition, store: store, asOf: asOf, refolds: refolds,
                                            into: blank)
    }

    public func forEachJourney(flow: String, definition: FlowDefinition, asOf: Timestamp,
                               _ body: (Journey) throws -> Void) throws {
        try ProjectionStore.forEachJourney(flow: flow, definition: definition, store: store, asOf: asOf, refolds: refolds, body)
    }

    public func forEachGlance(flow: String, definition: FlowDefinition, asOf: Timestamp, request: JourneyGlance.Request,
                              _ body: (JourneyGlance) throws -> Void) throws {
        try ProjectionStore.forEachGlance(flow: flow, definition: definition, store: store, asOf: asOf, request: request,
                                          refolds: refolds, body)
    }

    /// Read in `Tuning.glanceShares` shares at once (`ProjectionStore.accumulateGlances`).
    public func accumulateGlances<A: JourneyAccumulator>(flow: String, definition: FlowDefinition, asOf: Timestamp,
                                                         request: JourneyGlance.Request, into blank: A) throws -> A
        where A.Element == JourneyGlance {
        try ProjectionStore.accumulateGlances(flow: flow, definition: definition, store: store, asOf: asOf, request: request,
                                              refolds: refolds, into: blank)
    }
}
