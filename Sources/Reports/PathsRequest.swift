import FunnelModel
import Journeys

/// Everything `funnel paths` needs: the selection as `funnel report` takes it (flow, cohort,
/// filters, window, as-of, idle window) and, for the time between two steps, `from` and `to`.
public struct PathsRequest: Sendable {
    public var selection: ReportRequest
    public var from: String?
    public var to: String?

    public init(selection: ReportRequest, from: String? = nil, to: String? = nil) {
        self.selection = selection
        self.from = from
        self.to = to
    }

    /// Checks what can be checked without the store: the selection's options, `--from` and
    /// `--to` given together and different, and, when the flow is named, that it has them.
    public func validate(definitions: [FlowDefinition]) throws {
        try selection.validate(definitions: definitions)
        if selection.flow != nil {
            let definition = try ReportRequest.resolveFlow(selection.flow, cohort: selection.cohort, definitions: definitions, storeFlows: [])
            _ = try between(in: definition)
        } else {
            _ = try between(in: nil)
        }
    }

    /// `--from` and `--to`, checked against `definition` when there is one.
    func between(in definition: FlowDefinition?) throws -> (from: String, to: String)? {
        switch (from, to) {
        case (nil, nil): return nil
        case (.some, nil): throw RequestError("--from needs --to: the time between two steps is from one to the other")
        case (nil, .some): throw RequestError("--to needs --from: the time between two steps is from one to the other")
        case let (.some(from), .some(to)):
            guard from != to else { throw RequestError("--from and --to are both \(from): give two different steps") }
            if let definition {
                for (option, step) in [("--from", from), ("--to", to)] where definition.step(step) == nil {
                    throw RequestError("\(option) \(step): flow \(definition.id) has no step \"\(step)\"; steps: "
                                       + definition.orderedStepIDs.joined(separator: ", "))
                }
            }
            return (from, to)
        }
    }

    /// The paths of the selection's users: from their journeys' report facts, read as the
    /// report reads them, when the facts can answer (`PathsTally.acceptsFacts`); else read from
    /// the log behind `source` and each user's journey folded from the same events, as
    /// `FoldedJourneys` folds them. The same figures either way, on any store. `progress` is
    /// told how many of the flow's users have been read from the log so far.
    public func run(source: any JourneySource, definitions: [FlowDefinition], now: Timestamp,
                    progress: (Int) -> Void = { _ in }) throws -> PathsReport {
        let (definition, query) = try selection.resolve(in: source, definitions: definitions, now: now)
        let blank = PathsTally(definition: definition, query: query, between: try between(in: definition))
        if blank.acceptsFacts,
           var tally = try source.accumulateFacts(flow: definition.id, definition: definition, asOf: query.asOf, into: blank) {
            try tally.readLastEvents(from: source.log)
            return tally.report()
        }
        return try fromLog(source: source, definition: definition, query: query, into: blank, progress: progress)
    }

    /// The paths read from the log behind `source`, each user folded from their events.
    func fromLog(source: any JourneySource, definition: FlowDefinition, query: ReportQuery, into blank: PathsTally,
                 progress: (Int) -> Void) throws -> PathsReport {
        var tally = blank
        let folder = FlowFolder(definition)
        var read = 0
        try source.log.forEachUser(flow: definition.id) { events in
            read += 1
            progress(read)
            guard let journey = folder.journey(of: events, until: query.asOf) else { return }
            tally.add(journey, events: events)
        }
        return tally.report()
    }
}
