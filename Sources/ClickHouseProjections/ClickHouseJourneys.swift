import FunnelModel
import ClickHouseStore
import StoreCore
import Journeys

/// A ClickHouse store's journeys: report facts from the rows kept on each shard
/// (`ClickHouseFacts`), whole journeys and glances folded from the log at read time.
/// `refolds`, when given, is told how many facts a report folds again for an as-of before
/// their journeys' last events, as it folds them.
public struct ClickHouseJourneys: JourneySource {
    public let store: ClickHouseStore
    public let refolds: RefoldProgress?

    public init(store: ClickHouseStore, refolds: RefoldProgress? = nil) {
        self.store = store
        self.refolds = refolds
    }

    public var log: any EventLogReading { store }

    public func forEachFacts(flow: String, definition: FlowDefinition, asOf: Timestamp,
                             _ body: (JourneyFacts) throws -> Void) throws -> Bool {
        try ClickHouseFacts.forEachFacts(store: store, flow: flow, definition: definition, asOf: asOf, refolds: refolds, body)
    }

    public func forEachJourney(flow: String, definition: FlowDefinition, asOf: Timestamp,
                               _ body: (Journey) throws -> Void) throws {
        try FoldedJourneys(log: store).forEachJourney(flow: flow, definition: definition, asOf: asOf, body)
    }

    public func forEachGlance(flow: String, definition: FlowDefinition, asOf: Timestamp, request: JourneyGlance.Request,
                              _ body: (JourneyGlance) throws -> Void) throws {
        try FoldedJourneys(log: store).forEachGlance(flow: flow, definition: definition, asOf: asOf, request: request, body)
    }
}
