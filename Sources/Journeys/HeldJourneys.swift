import Foundation
import FunnelModel
import LineParsing
import StoreCore

/// The journeys one ingest folds in memory from its inputs' parsed events, input after input,
/// for a store that keeps no fold between inputs (ClickHouse). A journey goes on from the
/// last input's fold (kept encoded between inputs, as the SQLite store keeps it) while its
/// new events all come after those folded, in fold order; one with a late event, one past an
/// input's buffer, or one past `capacity` is given up and not held again: the store folds
/// those from the log. A held journey is right only when its user had no events in the flow
/// before the ingest: the store tells those apart when it writes the facts.
/// Unchecked: a value handed across `WorkerThread.folding`'s queue, changed there one input at a
/// time and read (by any thread) only once that worker has run everything it was given.
public final class HeldJourneys: @unchecked Sendable {
    private struct Going {
        /// The journey folded so far, with what its fold needs to go on, as the SQLite store
        /// keeps it (`Journey.binary`): a fraction of the fold's own memory.
        package var binary: [UInt8]
        /// The last event folded, in fold order (time, then seq).
        package var lastTime: Int64
        package var lastSeq: Int64
        /// The journey's highest seq.
        package var maxSeq: Int64
    }

    private enum Held {
        case going(Going)
        case givenUp
    }

    /// The folders of the flows whose facts are kept, by flow.
    private let folders: [String: FlowFolder]
    private let capacity: Int
    private let bufferLimit: Int
    private var journeys: [JourneyKey: Held] = [:]

    /// Holds the journeys of the flows of `definitions` that have report facts.
    public convenience init(definitions: [FlowDefinition]) {
        self.init(definitions: definitions, capacity: Tuning.heldJourneys, bufferLimit: Tuning.heldJourneyEvents)
    }

    package init(definitions: [FlowDefinition], capacity: Int, bufferLimit: Int) {
        var folders: [String: FlowFolder] = [:]
        for definition in definitions where JourneyFacts.supports(definition) && folders[definition.id] == nil {
            folders[definition.id] = FlowFolder(definition)
        }
        self.folders = folders
        self.capacity = capacity
        self.bufferLimit = bufferLimit
    }

    /// A sink for one input's parsed events: it never ends the input in segments.
    public func makeEventSink() -> any ParsedEventSink {
        ParsedGroups(bufferLimit: bufferLimit, segmented: false)
    }

    /// Folds the accepted events of one committed input (`sink` from `makeEventSink`).
    public func add(_ sink: any ParsedEventSink, accepted: AcceptedLines) {
        guard let groups = sink as? ParsedGroups else { return }
        let table = groups.parts.table
        // Each flow's codes of the input's table (`FlowContext.codes(of:)`), worked out the
        // first time the flow is met.
        var codes: [String: TableCodes] = [:]
        groups.takeAccepted(accepted) { key, events in
            guard let folder = folders[key.flow] else { return }
            guard let events else {
                journeys[key] = .givenUp
                return
            }
            let order = EventParts.foldOrder(events)
            guard let first = order.first else { return }
            var going: Going, fold: JourneyFold
            switch journeys[key] {
            case .givenUp?:
                return
            case .going(let held)?:
                guard (events[first].time.micros, events[first].seq) > (held.lastTime, held.lastSeq) else {
                    journeys[key] = .givenUp
                    return
                }
                guard let resumed = folder.resume(held.binary) else {
                    journeys[key] = .givenUp
                    return
                }
                going = held
                fold = resumed
            case nil:
                guard journeys.count < capacity else { return }
                going = Going(binary: [], lastTime: .min, lastSeq: .min, maxSeq: .min)
                fold = JourneyFold(userID: key.user, flow: key.flow, rules: folder.context.rules)
            }
            if codes[key.flow] == nil { codes[key.flow] = folder.context.codes(of: table) }
            var view = HeldView(held: events, table: table, i: 0, codes: codes[key.flow] ?? .none)
            for i in order {
                view.i = i
                fold.apply(view, explain: false)
                going.maxSeq = max(going.maxSeq, events[i].seq)
            }
            going.binary = folder.encode(fold)
            going.lastTime = events[order[order.count - 1]].time.micros
            going.lastSeq = events[order[order.count - 1]].seq
            journeys[key] = .going(going)
        }
    }

    /// The flows with journeys held, sorted.
    public var flows: [String] {
        Set(journeys.keys.map(\.flow)).sorted()
    }

    /// The fingerprint of the definition `flow`'s journeys are folded with.
    public func fingerprint(of flow: String) -> String? {
        folders[flow]?.fingerprint
    }

    /// The users of `flow` whose journeys are held (not given up), in no particular order.
    public func users(of flow: String) -> [String] {
        journeys.compactMap { key, held in
            if key.flow == flow, case .going = held { return key.user }
            return nil
        }
    }

    /// A held journey's report facts, the highest seq among its events and its last event's time.
    public func facts(flow: String, user: String) -> (facts: JourneyFacts, throughSeq: Int64, lastMicros: Int64)? {
        // The journey as kept is already finished: read back, not folded on and finished again.
        guard case .going(let going)? = journeys[JourneyKey(flow: flow, user: user)], let folder = folders[flow],
              let journey = folder.decode(going.binary)?.journey, let facts = folder.facts(of: journey) else { return nil }
        return (facts, going.maxSeq, going.lastTime)
    }
}
