import Foundation
import FunnelModel
import EventStore
import Workers
import GRDB
import Journeys

/// How a touched journey is folded at the end of an input.
enum FoldPlan: Sendable {
    /// From its held events (parts in `FoldWork`), going on from a stored fold or from nothing.
    case fold(JourneyFold?, [HeldEvent])
    /// From the held events of the input before (the user's whole history before this one,
    /// with the parts they refer to) and this input's: the two merged in fold order.
    case merge(EventTable, [HeldEvent], [HeldEvent])
    /// Again from the log: its stored lines, read where the plan is made, decoded by a worker.
    case log(StoredLines)
}

/// What a folding worker made of a plan.
enum FoldOutcome: Sendable {
    case row(EncodedJourney)
    /// A journey that no longer has events (its row goes).
    case none
    case failed(String)
}

/// What the folding workers share (read-only).
struct FoldWork: Sendable {
    let plans: [FoldPlan]
    let keys: [JourneyKey]
    /// The parts the plans' held events refer to.
    let table: EventTable
    let definitions: [String: FlowDefinition]
    let contexts: [String: FlowContext]
    /// By flow, what its folds read of the table once (`FlowContext.codes(of:)`).
    let codes: [String: TableCodes]

    init(plans: [FoldPlan], keys: [JourneyKey], table: EventTable, definitions: [String: FlowDefinition],
         contexts: [String: FlowContext]) {
        self.plans = plans
        self.keys = keys
        self.table = table
        self.definitions = definitions
        self.contexts = contexts
        var codes: [String: TableCodes] = [:]
        if !table.names.isEmpty {
            for key in keys where codes[key.flow] == nil { codes[key.flow] = contexts[key.flow]?.codes(of: table) ?? .none }
        }
        self.codes = codes
    }

    /// A view of `held`, events of this work's table, for a fold of `flow`.
    func view(_ held: [HeldEvent], flow: String) -> HeldView {
        HeldView(held: held, table: table, i: 0, codes: codes[flow] ?? .none)
    }
}

extension ProjectionStore {
    /// What folding and encoding each plan of `work` gives, with its key, in plan order,
    /// worked out on `most` workers (one for a small chunk). Each row is made where its
    /// outcome is: moved into place, never copied.
    static func foldAll(_ work: FoldWork, workers most: Int = WorkerCount.machine) -> [FoldedRow] {
        let workers = work.plans.count >= Tuning.plansForMoreWorkers ? most : 1
        return Array(work.plans.indices).parallelMap(workers: workers) { i in
            var fromLog = false
            if case .log = work.plans[i] { fromLog = true }
            return FoldedRow(key: work.keys[i], outcome: fold(work, i), fromLog: fromLog)
        }
    }

    /// What folding and encoding plan `i` of `work` gives.
    private static func fold(_ work: FoldWork, _ i: Int) -> FoldOutcome {
        let key = work.keys[i]
        let context = work.contexts[key.flow] ?? FlowContext(work.definitions[key.flow])
        var fold: JourneyFold?
        switch work.plans[i] {
        case .fold(let resumed, let held):
            if resumed != nil || !held.isEmpty {
                var going = resumed ?? JourneyFold(userID: key.user, flow: key.flow, rules: context.rules)
                going.apply(work.view(held, flow: key.flow), order: EventParts.foldOrder(held))
                fold = going
            }
        case .merge(let earlierTable, let earlier, let held):
            var going = JourneyFold(userID: key.user, flow: key.flow, rules: context.rules)
            foldMerged(into: &going, HeldView(held: earlier, table: earlierTable, i: 0), work.view(held, flow: key.flow))
            fold = going
        case .log(let stored):
            do {
                fold = JourneyFold.fold(try stored.events(), rules: context.rules)
            } catch {
                return .failed("\(error)")
            }
        }
        guard let fold else { return .none }
        let (journey, codes) = fold.finishCoded(paths: context.paths)
        return .row(ProjectionStore.encode(journey, context: context, resume: fold.resume, codes: codes))
    }

    /// Folds the events of two views (each over its own held events and parts) in fold order:
    /// time, then seq (seqs differ between inputs, so no two events tie), a run of one view's
    /// events at a time.
    private static func foldMerged(into going: inout JourneyFold, _ a: HeldView, _ b: HeldView) {
        let orderA = EventParts.foldOrder(a.held), orderB = EventParts.foldOrder(b.held)
        var i = 0, j = 0
        while i < orderA.count || j < orderB.count {
            // Context numbers are each input's own: the fold forgets the last one when the
            // events switch from one view to the other.
            going.forgetContextNumber()
            let start = i
            while i < orderA.count, j == orderB.count || before(a.held[orderA[i]], b.held[orderB[j]]) { i += 1 }
            if i > start { going.apply(a, order: Array(orderA[start..<i])) }
            going.forgetContextNumber()
            let startB = j
            while j < orderB.count, i == orderA.count || before(b.held[orderB[j]], a.held[orderA[i]]) { j += 1 }
            if j > startB { going.apply(b, order: Array(orderB[startB..<j])) }
        }
    }

    /// Whether `x` comes before `y` in fold order.
    private static func before(_ x: HeldEvent, _ y: HeldEvent) -> Bool {
        (x.time.micros, x.seq) < (y.time.micros, y.seq)
    }
}
