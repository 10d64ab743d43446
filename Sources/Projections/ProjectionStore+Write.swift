import Foundation
import FunnelModel
import EventStore
import GRDB
import StoreCore
import Journeys

extension ProjectionStore {
    /// Folds one user's journey in one flow from the log and writes (or removes) its row.
    @discardableResult
    static func refold(user: String, flow: String, context: FlowContext, in db: Database) throws -> Journey? {
        let events = try EventStore.events(user: user, flow: flow, in: db)
        guard let fold = JourneyFold.fold(events, rules: context.rules) else {
            try remove(flow: flow, user: user, in: db)
            return nil
        }
        let journey = fold.finish(paths: context.paths)
        try save(journey, context: context, resume: fold.resume, in: db)
        return journey
    }

    static func save(_ j: Journey, context: FlowContext, resume: JourneyFold.Resume? = nil, in db: Database) throws {
        try write(encode(j, context: context, resume: resume), context: context, in: db)
    }

    /// A journey's row values, computed off the writing thread. `codes`: its steps' codes,
    /// when `context`'s fold finished it (`JourneyFold.finishCoded`).
    static func encode(_ j: Journey, context: FlowContext, resume: JourneyFold.Resume?, codes: JourneyCodes? = nil) -> EncodedJourney {
        // Not a closure over the journey: a specialized closure would take a copy of it.
        var facts: [UInt8]?
        if let d = context.definition, JourneyFacts.supports(d) {
            facts = JourneyFacts(j, definition: d, slots: context.slots, prepared: context.facts ?? JourneyFacts.Prepared(d),
                                 codes: codes).binary()
        }
        return EncodedJourney(flow: j.flow, userID: j.userID, startedUs: j.startedAt?.micros, completedUs: j.completedAt?.micros,
                              lastUs: j.lastEventAt.micros, currentStep: j.currentStep, lane: j.lane,
                              data: j.binary(resume: resume, names: context.names, codes: codes), facts: facts)
    }

    static func write(_ e: EncodedJourney, context: FlowContext, in db: Database) throws {
        try JourneyRowWriter(db).write(e, context: context)
    }

    /// Removes a journey (the log has no events for it).
    static func remove(flow: String, user: String, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM journeys WHERE flow = ? AND user_id = ?").execute(arguments: [flow, user])
        try db.cachedStatement(sql: "DELETE FROM journey_facts WHERE flow = ? AND user_id = ?").execute(arguments: [flow, user])
    }

    /// Drops every journey and folds them again from the log. Returns how many journeys.
    /// Lines are read a chunk of users at a time and decoded and folded on both cores;
    /// `progress` is told after each chunk how many users' runs of a flow are folded, of all.
    @discardableResult
    public static func rebuild(store: EventStore, definitions: [FlowDefinition],
                               progress: ((_ done: Int, _ total: Int) -> Void)? = nil) throws -> Int {
        let byID = Dictionary(definitions.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let contexts = byID.mapValues { FlowContext($0) }
        return try store.writer.write { db in
            try db.execute(sql: "DELETE FROM journeys")
            try db.execute(sql: "DELETE FROM journey_facts")
            let total = progress == nil ? 0
                : try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT 1 FROM user_runs GROUP BY user, flow)") ?? 0
            var done = 0
            var count = 0
            var pending: [(key: JourneyKey, lines: StoredLines)] = []
            var pendingBytes = 0
            func flush() throws {
                guard !pending.isEmpty else { return }
                let work = FoldWork(plans: pending.map { .log($0.lines) }, keys: pending.map(\.key), table: EventParts().table,
                                    definitions: byID, contexts: contexts)
                let rows = foldAll(work)
                let writer = try JourneyRowWriter(db)
                for row in rows {
                    let key = row.key
                    switch row.outcome {
                    case .row(let e):
                        try writer.write(e, context: contexts[key.flow] ?? FlowContext(nil))
                        count += 1
                    case .failed(let message):
                        throw StoreError(doing: "rebuilding the journey of \(key.user) in \(key.flow)", reason: message)
                    case .none:
                        break
                    }
                }
                done += pending.count
                progress?(done, total)
                pending.removeAll(keepingCapacity: true)
                pendingBytes = 0
            }
            try EventStore.forEachUsersLines(in: db) { user, flow, lines in
                pending.append((JourneyKey(flow: flow, user: user), lines))
                pendingBytes += lines.byteCount
                if pendingBytes > Tuning.logBytesPerChunk { try flush() }
            }
            try flush()
            try setWatermark(try EventStore.lastSeq(in: db), in: db)
            return count
        }
    }
}
