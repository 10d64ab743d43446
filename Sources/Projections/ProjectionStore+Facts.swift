import Foundation
import FunnelModel
import EventStore
import GRDB
import StoreCore
import Journeys

extension ProjectionStore {
    /// Streams the report facts of every journey of a flow folded with `definition` (stale
    /// ones are refolded first). A journey with events after `asOf` is folded again from the
    /// log up to `asOf` (left out when it had not begun by then). False when facts cannot
    /// stand for this definition's journeys (or a read-only store holds stale ones): use
    /// `forEachJourney`. `refolds` is told how many journeys are folded again for `asOf`.
    public static func forEachFacts(flow: String, definition: FlowDefinition, store: EventStore, asOf: Timestamp,
                                    refolds: RefoldProgress? = nil, _ body: (JourneyFacts) throws -> Void) throws -> Bool {
        guard JourneyFacts.supports(definition) else { return false }
        let context = FlowContext(definition)
        // Facts a read-only store could not refresh do not stand for this definition.
        guard try refoldStale(flow: flow, context: context, store: store).isEmpty else { return false }
        try store.writer.read { db in
            try scanFacts(flow: flow, context: context, asOf: asOf, users: .all, refolds: refolds,
                          in: db, body)
        }
        return true
    }

    /// `forEachFacts` added into `blank` (nil when that is false), in `shares` shares of the
    /// flow's users (two at most, split by user id), each read on a thread of its own with a
    /// connection of its own: decoding and counting the facts is most of a warm report. When
    /// the shares' transactions saw different states of the store (an ingest committed between
    /// them), the whole flow is read once more (`readShares`).
    public static func accumulateFacts<A: JourneyAccumulator>(flow: String, definition: FlowDefinition, store: EventStore,
                                                              asOf: Timestamp, shares: Int = Tuning.factShares,
                                                              refolds: RefoldProgress? = nil, into blank: A) throws -> A?
        where A.Element == JourneyFacts {
        guard JourneyFacts.supports(definition) else { return nil }
        let context = FlowContext(definition)
        guard try refoldStale(flow: flow, context: context, store: store).isEmpty else { return nil }
        func readAll(_ db: Database, _ accumulator: inout A) throws {
            try scanFacts(flow: flow, context: context, asOf: asOf, users: .all, refolds: refolds, in: db) {
                accumulator.add($0)
            }
        }
        guard shares > 1, let split = try store.writer.read({ db in try factsSplit(flow: flow, in: db) }) else {
            var accumulator = blank
            try store.writer.read { db in try readAll(db, &accumulator) }
            return accumulator
        }
        let users: [FactsUsers] = [.below(split), .from(split)]
        return try readShares(users.count, into: blank, store: store, doing: "reading the journeys of \(flow)", { part, db, accumulator in
            try scanFacts(flow: flow, context: context, asOf: asOf, users: users[part], refolds: refolds,
                          in: db) { accumulator.add($0) }
        }, whole: readAll)
    }

    /// Which users of a flow a facts scan reads: all, or those whose id sorts below or from
    /// a split point (bytes compared as SQLite compares text).
    enum FactsUsers: Sendable {
        case all
        case below([UInt8])
        case from([UInt8])
    }

    /// The facts rows of a flow's users in `users`, in user id order, once `refoldStale` has
    /// run; `refolds` is first told how many rows are folded again (past `asOf`, or without facts).
    private static func scanFacts(flow: String, context: FlowContext, asOf: Timestamp,
                                  users: FactsUsers, refolds: RefoldProgress?, in db: Database,
                                  _ body: (JourneyFacts) throws -> Void) throws {
        let doing = "reading the journeys of \(flow)"
        // The flow's rows of `users`, then `extra`, whose parameter (if any) is the returned number.
        func statement(_ select: String, _ extra: String = "") throws -> (RawStatement, Int32) {
            let statement: RawStatement
            switch users {
            case .all:
                statement = try RawStatement(db, select + extra)
                statement.text(1, flow)
                return (statement, 2)
            case .below(let split):
                statement = try RawStatement(db, select + " AND user_id < ?" + extra)
                split.withUnsafeBufferPointer { statement.text(2, $0) }
            case .from(let split):
                statement = try RawStatement(db, select + " AND user_id >= ?" + extra)
                split.withUnsafeBufferPointer { statement.text(2, $0) }
            }
            statement.text(1, flow)
            return (statement, 3)
        }
        // The count reads the flow's facts rows past `asOf`: only when there are any (the
        // `last_us` index of `journeys` says at once), not for a read as of the latest event.
        if let refolds, try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM journeys WHERE last_us > ?)",
                                          arguments: [asOf.micros]) == true {
            let (past, asOfParameter) = try statement("SELECT facts FROM journey_facts WHERE flow = ?",
                                                      " AND (last_us > ? OR facts IS NULL)")
            past.int(asOfParameter, asOf.micros)
            var count = 0
            try past.forEachRow(doing) {
                if try !beganAfter(asOf, facts: past, column: 0, doing: doing) { count += 1 }
            }
            refolds.expect(count)
        }
        let (statement, _) = try statement("SELECT facts, last_us, user_id FROM journey_facts WHERE flow = ?")
        var refold = LogRefold(flow: flow, context: context, until: asOf, in: db)
        var facts = JourneyFacts.empty
        try statement.forEachRow(doing) {
            if statement.int64(1) > asOf.micros || statement.isNull(0) {
                // A journey that began after `asOf` is left out without reading the log.
                if try beganAfter(asOf, facts: statement, column: 0, doing: doing) { return }
                guard let user = statement.string(2) else {
                    throw StoreError(doing: doing, reason: "a facts row without a user id", kind: .corrupt)
                }
                let cut = try refold.journey(user: user)
                refolds?.folded()
                if let cut, let facts = refold.folder.facts(of: cut) { try body(facts) }
                return
            }
            do {
                try facts.decode(statement.bytes(0))
                try body(facts)
            } catch let e as JourneyDecodingError {
                throw StoreError(doing: doing, reason: "\(e)", kind: .corrupt)
            }
        }
    }

    /// Whether the facts in `column` of the current row are of a journey whose first event
    /// came after `asOf` (false without facts: not known).
    private static func beganAfter(_ asOf: Timestamp, facts row: RawStatement, column: Int32, doing: String) throws -> Bool {
        guard !row.isNull(column) else { return false }
        do {
            return try JourneyFacts.firstEventAt(row.bytes(column)) > asOf.micros
        } catch let e as JourneyDecodingError {
            throw StoreError(doing: doing, reason: "\(e)", kind: .corrupt)
        }
    }

    /// A user id that splits a flow's users in two non-empty shares, about halfway between
    /// its first and last id; nil when the flow has fewer than two users.
    static func factsSplit(flow: String, in db: Database) throws -> [UInt8]? {
        func end(_ order: String) throws -> [UInt8]? {
            let statement = try RawStatement(db, "SELECT user_id FROM journey_facts WHERE flow = ? ORDER BY user_id \(order) LIMIT 1")
            statement.text(1, flow)
            var id: [UInt8]?
            try statement.forEachRow("finding the users of \(flow)") { id = Array(statement.bytes(0).bindMemory(to: UInt8.self)) }
            return id
        }
        guard let first = try end("ASC"), let last = try end("DESC"), first != last else { return nil }
        return midpoint(first, last)
    }

    /// The shortest id above `low` and at most `high` (`low` sorts below `high`) that differs
    /// from them at their first differing byte, with that byte halfway between theirs.
    static func midpoint(_ low: [UInt8], _ high: [UInt8]) -> [UInt8] {
        var c = 0
        while c < low.count, c < high.count, low[c] == high[c] { c += 1 }
        guard c < high.count else { return high }
        let a = c < low.count ? Int(low[c]) : 0
        let b = Int(high[c])
        return Array(high[..<c]) + [UInt8((a + b + 1) / 2)]
    }
}
