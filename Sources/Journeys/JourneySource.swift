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

    /// Adds the report facts of every journey of a flow as of `asOf` into `blank` and returns
    /// it; nil, with nothing read, when `forEachFacts` is false. The source decides how many
    /// shares it reads at once, and whether to read them again.
    func accumulateFacts<A: JourneyAccumulator>(flow: String, definition: FlowDefinition, asOf: Timestamp,
                                                into blank: A) throws -> A? where A.Element == JourneyFacts

    /// Streams every journey of a flow as of `asOf`, as `forEachFacts` does.
    func forEachJourney(flow: String, definition: FlowDefinition, asOf: Timestamp,
                        _ body: (Journey) throws -> Void) throws

    /// Streams what `request` asks of every journey of a flow as of `asOf` (`JourneyGlance`).
    func forEachGlance(flow: String, definition: FlowDefinition, asOf: Timestamp, request: JourneyGlance.Request,
                       _ body: (JourneyGlance) throws -> Void) throws

    /// Adds what `request` asks of every journey of a flow as of `asOf` into `blank` and
    /// returns it, as `accumulateFacts` does.
    func accumulateGlances<A: JourneyAccumulator>(flow: String, definition: FlowDefinition, asOf: Timestamp,
                                                  request: JourneyGlance.Request, into blank: A) throws -> A
        where A.Element == JourneyGlance
}

extension JourneySource {
    /// One pass, added into `blank`.
    public func accumulateFacts<A: JourneyAccumulator>(flow: String, definition: FlowDefinition, asOf: Timestamp,
                                                       into blank: A) throws -> A? where A.Element == JourneyFacts {
        var accumulator = blank
        guard try forEachFacts(flow: flow, definition: definition, asOf: asOf, { accumulator.add($0) }) else { return nil }
        return accumulator
    }

    /// One pass, added into `blank`.
    public func accumulateGlances<A: JourneyAccumulator>(flow: String, definition: FlowDefinition, asOf: Timestamp,
                                                         request: JourneyGlance.Request, into blank: A) throws -> A
        where A.Element == JourneyGlance {
        var accumulator = blank
        try forEachGlance(flow: flow, definition: definition, asOf: asOf, request: request) { accumulator.add($0) }
        return accumulator
    }
}
