import FunnelModel
import StoreCore

/// The memory store's log read back: the core's read protocol (`EventLogReading`), by
/// scanning its arrays.
extension MemoryStore: EventLogReading {
    public func events(user: String, flow: String?) throws -> [RecordedEvent] {
        read { $0.events.filter { $0.event.userID == user && (flow == nil || $0.event.flow == flow) } }
            .sorted(by: RecordedEvent.foldOrder)
    }

    public func forEachEvent(flow: String?, _ body: (RecordedEvent) throws -> Void) throws {
        let groups = Dictionary(grouping: read { $0.events.filter { flow == nil || $0.event.flow == flow } }) {
            JourneyGroup(user: $0.event.userID, flow: $0.event.flow)
        }
        for key in groups.keys.sorted(by: { ($0.user, $0.flow) < ($1.user, $1.flow) }) {
            for e in (groups[key] ?? []).sorted(by: RecordedEvent.foldOrder) { try body(e) }
        }
    }

    public func inputs() throws -> [LedgerEntry] { read { $0.ledger } }

    public func quarantine() throws -> [QuarantineEntry] { read { $0.quarantine } }

    public func flows() throws -> [String] { Array(Set(read { $0.events.map(\.event.flow) })).sorted() }

    public func latestEventTime(notAfter bound: Timestamp?) throws -> Timestamp? {
        read { $0.events.map(\.event.time).filter { t in bound.map { t.micros <= $0.micros } ?? true }.max { $0.micros < $1.micros } }
    }

    /// Ids holding `query`, else the closest by edit distance (at most a third of its length).
    public func userIDs(matching query: String, limit: Int) throws -> [String] {
        let users = Array(Set(read { $0.events.map(\.event.userID) })).sorted()
        let holding = users.filter { $0.contains(query) }
        if !holding.isEmpty { return Array(holding.prefix(limit)) }
        let q = Array(query.unicodeScalars), budget = max(1, query.count / 3)
        return users.map { (EditDistance.between(q, Array($0.unicodeScalars)), $0) }.filter { $0.0 <= budget }
            .sorted { $0 < $1 }.prefix(limit).map(\.1)
    }

    public func duplicates(ofEventIDs ids: [String]) throws -> [String: [DuplicateCopy]] {
        read { log in Dictionary(uniqueKeysWithValues: ids.compactMap { id in log.duplicates[id].map { (id, $0) } }) }
    }

    public func lastEvents(onStep step: String, flow: String, users: [String], notAfter bound: Timestamp) throws -> [String: RecordedEvent] {
        var out: [String: RecordedEvent] = [:]
        for user in users {
            let last = try events(user: user, flow: flow).last { $0.event.step == step && $0.event.time.micros <= bound.micros }
            if let last { out[user] = last }
        }
        return out
    }

    public func events(seqs: [Int64]) throws -> [RecordedEvent] {
        let events = read { $0.events }
        return try seqs.map { seq in
            guard seq >= 1 && seq <= Int64(events.count) else {
                throw StoreError(doing: "reading event seq \(seq)", reason: "the memory store holds no such event")
            }
            return events[Int(seq - 1)]
        }
    }

    /// The selected events' lines, as accepted, in seq order.
    public func forEachLine(_ selection: EventSelection, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Int {
        let selected = read { $0.events }.filter { e in
            (selection.flow.map { e.event.flow == $0 } ?? true) && (selection.user.map { e.event.userID == $0 } ?? true)
                && selection.holds(micros: e.event.time.micros)
        }
        for e in selected { try Array(e.line.utf8).withUnsafeBufferPointer(body) }
        return selected.count
    }
}

/// A user's events in one flow: how `forEachEvent` groups the log.
private struct JourneyGroup: Hashable {
    var user: String
    var flow: String
}
