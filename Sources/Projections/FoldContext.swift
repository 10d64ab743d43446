import Foundation
import FunnelModel
import EventStore
import GRDB
import Journeys
import Workers

/// What folding an input needs besides the store.
struct FoldContext: Sendable {
    let definitions: [String: FlowDefinition]
    let contexts: [String: FlowContext]
    /// Threads that fold: every worker on the writing thread (it waits anyway), 1 beside it.
    let workers: Int
    /// Beside the writing thread: true once the writer waits for the fold (then every
    /// worker folds).
    var awaited: (@Sendable () -> Bool)? = nil
    /// Where the input's new users' events are kept, and the kept events of the inputs
    /// committed before it, which its late users fold from (nil: none; they fold from the log).
    var recent: RecentEvents? = nil

    /// Folds the journeys of `p` that need nothing from the store (the users new with this
    /// input, from their held events alone), removes them from `p`, and hands the outcomes to
    /// `emit`: it may run before the input commits. `fold(_:in:emit:)` begins with it.
    func foldNew(_ p: inout PendingFold, emit: ([FoldedRow]) throws -> Void) throws -> ProjectionUpdater.Counts {
        var counts = ProjectionUpdater.Counts()
        let new = p.order.filter { key in p.newUsers.contains(key.user) && (p.buffered[key] ?? nil) != nil }
        guard !new.isEmpty else { return counts }
        let newKeys = Set(new)
        p.order.removeAll { newKeys.contains($0) }
        let table = p.table
        var start = 0
        while start < new.count {
            let end = min(start + Tuning.foldChunk, new.count)
            var plans: [FoldPlan] = []
            plans.reserveCapacity(end - start)
            for key in new[start..<end] {
                let events = p.buffered.removeValue(forKey: key).flatMap { $0 } ?? []
                if let owner = p.input { recent?.keep(key, events, table: table, owner: owner) }
                plans.append(.fold(nil, events))
            }
            counts.fromMemory += plans.count
            try emit(foldAll(plans, keys: Array(new[start..<end]), table: table))
            start = end
        }
        return counts
    }

    /// The outcomes of `plans` (one per key), folded on this context's workers.
    private func foldAll(_ plans: [FoldPlan], keys: [JourneyKey], table: EventTable) -> [FoldedRow] {
        let work = FoldWork(plans: plans, keys: keys, table: table, definitions: definitions, contexts: contexts)
        return ProjectionStore.foldAll(work, workers: awaited?() == true ? WorkerCount.machine : workers)
    }

    /// Folds each touched journey of `p` the cheapest exact way, reading only: from its
    /// buffered events alone (a user new with this input: `foldNew`, first), going on from its
    /// stored fold (which must cover exactly the earlier events, all before the new ones in
    /// fold order), or again from the log. Hands each outcome to `emit`, the new users' first,
    /// then the rest in `p.order`. Each journey's buffered events are let go once planned.
    func fold(_ p: inout PendingFold, in db: Database,
              emit: ([FoldedRow]) throws -> Void) throws -> ProjectionUpdater.Counts {
        var counts = try foldNew(&p, emit: emit)
        try plan(&p, in: db, counts: &counts) { chunk in try emit(foldAll(chunk)) }
        return counts
    }

    /// Journeys planned together: how each is folded, with what it reads of the store.
    struct PlannedChunk: Sendable {
        var plans: [FoldPlan]
        var keys: [JourneyKey]
        var table: EventTable
    }

    /// The outcomes of a planned chunk, folded on this context's workers (no store read).
    func foldAll(_ chunk: PlannedChunk) -> [FoldedRow] {
        foldAll(chunk.plans, keys: chunk.keys, table: chunk.table)
    }

    /// Decides how each touched journey of `p` left after `foldNew` is folded (`fold`), a
    /// chunk at a time in `p.order`, reading the store, and hands each chunk to `body`; adds
    /// how many go which way to `counts`.
    func plan(_ p: inout PendingFold, in db: Database, counts: inout ProjectionUpdater.Counts,
              _ body: (PlannedChunk) throws -> Void) throws {
        let load = try RawStatement(db, "SELECT definition, data FROM journeys WHERE flow = ? AND user_id = ?")
        // One atom lookup for both readers: a user read from the log is looked up once.
        let atoms = try AtomIDs(db)
        let logLines = try UsersLines(db, atoms: atoms)
        let prior = try PriorEvents(db, atoms: atoms)
        // A chunk of journeys at a time, handed on before the next is planned (`fold` folds
        // and emits it then, so that resumed folds and lines read do not pile up).
        let chunk = Tuning.foldChunk
        let table = p.table
        // The journeys with held events first: they need no log reads, so their events are let
        // go at the fold's start instead of held while the log is read (as long as the next
        // input may take, whose held events would then grow beside these).
        let held = p.order.filter { (p.buffered[$0] ?? nil) != nil }
        if held.count < p.order.count {
            p.order = held + p.order.filter { (p.buffered[$0] ?? nil) == nil }
        }
        var start = 0
        while start < p.order.count {
            var end = min(start + chunk, p.order.count)
            var plans: [FoldPlan] = []
            plans.reserveCapacity(end - start)
            // Lines read back from the log are held until the chunk is folded: a chunk ends
            // early past `Tuning.logBytesPerChunk` of them.
            var logBytes = 0
            for (offset, key) in p.order[start..<end].enumerated() {
                if logBytes > Tuning.logBytesPerChunk {
                    end = start + offset
                    break
                }
                let definition = definitions[key.flow]
                let context = contexts[key.flow] ?? FlowContext(definition)
                if let held = p.buffered.removeValue(forKey: key) ?? nil {
                    if let fold = try resumable(key, events: held, firstSeq: p.firstSeq, context: context,
                                                load: load, prior: prior) {
                        plans.append(.fold(fold, held))
                        counts.resumed += 1
                        continue
                    }
                    if let earlier = try recentEvents(key, firstSeq: p.firstSeq, prior: prior) {
                        plans.append(.merge(earlier.table, earlier.events, held))
                        counts.fromRecent += 1
                        continue
                    }
                }
                let stored = try logLines.lines(user: key.user, flow: key.flow)
                logBytes += stored.byteCount
                plans.append(.log(stored))
                counts.fromLog += 1
            }
            try body(PlannedChunk(plans: plans, keys: Array(p.order[start..<end]), table: table))
            start = end
        }
    }

    /// The stored fold of `key`, when it covers exactly the events before `firstSeq` and
    /// `events` all come after them in fold order.
    private func resumable(_ key: JourneyKey, events: [HeldEvent], firstSeq: Int64, context: FlowContext,
                           load: RawStatement, prior: PriorEvents) throws -> JourneyFold? {
        guard firstSeq != .max, let minTime = events.map(\.time.micros).min() else { return nil }
        load.reset()
        load.text(1, key.flow)
        load.text(2, key.user)
        defer { load.reset() }
        guard try load.step("reading the journey of \(key.user) in \(key.flow)"),
              load.string(0) == context.fingerprint else { return nil }
        guard let (journey, state) = try? Journey.decode(binary: load.bytes(1), names: context.names),
              let state, journey.lastEventAt.micros <= minTime else { return nil }
        let before = try prior.of(user: key.user, flow: key.flow, before: firstSeq)
        guard before.count == journey.events, before.lastMicros == journey.lastEventAt.micros else { return nil }
        return JourneyFold(resuming: journey, state, rules: context.rules)
    }

    /// The events a committed input before kept for `key` (`RecentEvents`), when they are every
    /// event the store has for it before `firstSeq`: they are all there (their input
    /// committed), so as many is the same events.
    private func recentEvents(_ key: JourneyKey, firstSeq: Int64, prior: PriorEvents) throws
        -> (table: EventTable, events: [HeldEvent])? {
        guard firstSeq != .max, let earlier = recent?.previous(key) else { return nil }
        let before = try prior.of(user: key.user, flow: key.flow, before: firstSeq)
        guard before.count == earlier.events.count,
              before.lastMicros == earlier.events.map(\.time.micros).max() else { return nil }
        return earlier
    }
}
