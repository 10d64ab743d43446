import FunnelModel
import StoreCore

/// What reports read of a store: its log, and every journey of a flow folded with a
/// definition, as of a time. The SQLite store answers from its journeys projection;
/// `FoldedJourneys` folds the journeys from any log at read time. Either gives the same
/// journeys; the order they come in is the source's own, so a reader must not depend on it.
public protocol JourneySource: Sendable {
    /// The event log behind the journeys: flows, as-of, last events on a step.
    var log: any EventLogReading { get }

    /// Streams the report facts of every journey of a flow as of `asOf` (a journey with
    /// events after it counts what it had by then, and is left out when it had not begun).
    /// False, with nothing streamed, when facts cannot stand for this definition's journeys
    /// (`JourneyFacts.supports`): read whole journeys instead.
    func forEachFacts(flow: String, definition: FlowDefinition, asOf: Timestamp,
                      _ body: (JourneyFacts) throws -> Void) throws -> Bool

    /// `forEachFacts` in at most `parts` shares of the journeys, read at once on threads of
    /// their own when the source can. `start` is called with a share's number before its
    /// first facts, and again when the share is read anew (its state must be emptied then);
    /// `body` gets each journey's facts with its share's number, from one thread at a time
    /// for a share.
    func forEachFacts(flow: String, definition: FlowDefinition, asOf: Timestamp, parts: Int,
                      start: @escaping @Sendable (Int) -> Void,
                      _ body: @escaping @Sendable (Int, JourneyFacts) -> Void) throws -> Bool

    /// Streams every journey of a flow as of `asOf`, as `forEachFacts` does.
    func forEachJourney(flow: String, definition: FlowDefinition, asOf: Timestamp,
                        _ body: (Journey) throws -> Void) throws

    /// Streams what `request` asks of every journey of a flow as of `asOf` (`JourneyGlance`).
    func forEachGlance(flow: String, definition: FlowDefinition, asOf: Timestamp, request: JourneyGlance.Request,
                       _ body: (JourneyGlance) throws -> Void) throws

    /// `forEachGlance` in at most `parts` shares of the journeys, read at once on threads of
    /// their own when the source can. `start` is called with a share's number before its
    /// first glance, and again when the share is read anew (its state must be emptied then);
    /// `body` gets each glance with its share's number (`0 ..< parts`), from one thread at a
    /// time for a share.
    func forEachGlance(flow: String, definition: FlowDefinition, asOf: Timestamp, request: JourneyGlance.Request,
                       parts: Int, start: @escaping @Sendable (Int) -> Void,
                       _ body: @escaping @Sendable (Int, JourneyGlance) -> Void) throws
}

extension JourneySource {
    /// One share, read as `forEachFacts` reads.
    public func forEachFacts(flow: String, definition: FlowDefinition, asOf: Timestamp, parts: Int,
                             start: @escaping @Sendable (Int) -> Void,
                             _ body: @escaping @Sendable (Int, JourneyFacts) -> Void) throws -> Bool {
        start(0)
        return try forEachFacts(flow: flow, definition: definition, asOf: asOf) { body(0, $0) }
    }

    /// One share, read as `forEachGlance` reads.
    public func forEachGlance(flow: String, definition: FlowDefinition, asOf: Timestamp, request: JourneyGlance.Request,
                              parts: Int, start: @escaping @Sendable (Int) -> Void,
                              _ body: @escaping @Sendable (Int, JourneyGlance) -> Void) throws {
        start(0)
        try forEachGlance(flow: flow, definition: definition, asOf: asOf, request: request) { body(0, $0) }
    }
}
