import FunnelModel
import EventStore
import Simulator
import StoreCore

/// A log that hands out another log's user groups in another order (reversed, or shuffled
/// with a fixed seed), each group as the other log gives it: what a store whose users come
/// in another order (one ClickHouse shard after another) looks like to a reader. Holds the
/// whole log in memory, read when made: for tests.
public struct ReorderedLog: EventLogReading {
    public enum Order: Sendable {
        case reversed
        case shuffled(seed: UInt64)
    }

    public let base: any EventLogReading
    /// The base log's groups, in the new order.
    let groups: [[RecordedEvent]]

    /// Reads the whole base log once.
    public init(_ base: any EventLogReading, _ order: Order) throws {
        self.base = base
        var groups: [[RecordedEvent]] = []
        try base.forEachEvent(flow: nil) { e in
            if let last = groups.last?.last?.event, last.userID.utf8.elementsEqual(e.event.userID.utf8),
               last.flow.utf8.elementsEqual(e.event.flow.utf8) {
                groups[groups.count - 1].append(e)
            } else {
                groups.append([e])
            }
        }
        switch order {
        case .reversed:
            groups.reverse()
        case .shuffled(let seed):
            var random = SplitMix64(seed: seed)
            groups.shuffle(using: &random)
        }
        self.groups = groups
    }

    public func forEachEvent(flow: String?, _ body: (RecordedEvent) throws -> Void) throws {
        for group in groups where flow == nil || group.first?.event.flow == flow {
            for e in group { try body(e) }
        }
    }

    public func events(user: String, flow: String?) throws -> [RecordedEvent] { try base.events(user: user, flow: flow) }
    public func inputs() throws -> [LedgerEntry] { try base.inputs() }
    public func quarantine() throws -> [QuarantineEntry] { try base.quarantine() }
    public func flows() throws -> [String] { try base.flows() }
    public func latestEventTime(notAfter bound: Timestamp?) throws -> Timestamp? { try base.latestEventTime(notAfter: bound) }
    public func userIDs(matching query: String, limit: Int) throws -> [String] { try base.userIDs(matching: query, limit: limit) }
    public func duplicates(ofEventIDs ids: [String]) throws -> [String: [DuplicateCopy]] { try base.duplicates(ofEventIDs: ids) }
    /// The base log's, asked for the users in reverse: the answer is by user, whatever their order.
    public func lastEvents(onStep step: String, flow: String, users: [String], notAfter bound: Timestamp) throws -> [String: RecordedEvent] {
        try base.lastEvents(onStep: step, flow: flow, users: users.reversed(), notAfter: bound)
    }
    public func events(seqs: [Int64]) throws -> [RecordedEvent] { try base.events(seqs: seqs.reversed()) }
    /// The base log's lines: their order is arrival order, not users'.
    public func forEachLine(_ selection: EventSelection, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Int {
        try base.forEachLine(selection, body)
    }
}
