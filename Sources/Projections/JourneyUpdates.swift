import Foundation
import FunnelModel
import EventStore
import GRDB

/// A held event as a fold reads it: the input's held events and parts, and a position. Reads
/// each value where it is (a fold reads few of them per event) instead of copying them all.
struct HeldView: FoldableEvent {
    let held: [HeldEvent]
    let parts: [EventParts.Parts]
    let derived: [EventParts.Derived]
    let i: Int

    var seq: Int64 { held[i].seq }
    var time: Timestamp { held[i].time }
    var rawName: String { parts[Int(held[i].parts)].rawName }
    var step: String? { parts[Int(held[i].parts)].step }
    var properties: [String: JSONValue] { held[i].properties }
    var context: EventContext { parts[Int(held[i].parts)].context }
    var known: EventName? { derived[Int(held[i].parts)].known }
    var contextID: Int32 { derived[Int(held[i].parts)].contextID }
}

/// An event as a projection holds it while an input is read: its seq, time and properties,
/// and the index of its name, step and context in the input's `EventParts` (32 bytes, where
/// those parts alone take 80: almost every event repeats an earlier event's).
struct HeldEvent: Sendable {
    var seq: Int64
    var time: Timestamp
    var parts: Int32
    var properties: [String: JSONValue]
}

/// The names, steps and contexts of one input's held events, each distinct combination kept
/// once. The decoder hands equal values over as one shared value, so a combination is
/// recognised by its bits: equal bits are the same strings and dictionaries (the table keeps
/// them alive), and equal values with other bits are merely kept twice.
struct EventParts: Sendable {
    struct Parts: Sendable {
        var rawName: String
        var step: String?
        var context: EventContext
    }

    /// What a fold reads of a combination besides its values: the known event its name is,
    /// and its context's number (equal numbers are the same context; see `contextID`).
    struct Derived: Sendable {
        var known: EventName?
        var contextID: Int32
    }

    /// A combination's bits (up to 80 bytes: `Parts` is 80 on a 64-bit machine).
    struct Bits: Hashable, Sendable {
        var w: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
            = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

        init() {}

        init?<T>(_ value: T) {
            let size = MemoryLayout<T>.size
            guard size <= 80 else { return nil }
            withUnsafeMutableBytes(of: &w) { out in
                withUnsafeBytes(of: value) { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<size])) }
            }
        }

        static func == (a: Bits, b: Bits) -> Bool {
            withUnsafeBytes(of: a.w) { x in withUnsafeBytes(of: b.w) { y in x.elementsEqual(y) } }
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(mix)
        }

        /// A cheap mix of the words (the hash, and the slot in `EventParts.recent`).
        var mix: UInt64 {
            var h: UInt64 = 0x9E37_79B9_7F4A_7C15
            withUnsafeBytes(of: w) { raw in
                for i in 0..<10 {
                    h = (h ^ raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) &* 0x100_0000_01B3
                    h ^= h >> 29
                }
            }
            return h
        }
    }

    private(set) var list: [Parts] = []
    private(set) var derived: [Derived] = []
    private var index: [Bits: Int32] = [:]
    /// The last combination seen in each of 1,024 slots (by `Bits.mix`), with its bits: most
    /// events find theirs here without a dictionary lookup.
    private var recent = [Int32](repeating: -1, count: EventParts.recentSlots)
    private var recentBits = [Bits](repeating: Bits(), count: EventParts.recentSlots)
    private static let recentSlots = 1_024
    /// Contexts numbered by their bits, as combinations are: a fold skips an event's context
    /// when the event before had the same number (applying a context twice changes nothing).
    private var contexts: [Bits: Int32] = [:]
    private var contextCount: Int32 = 0

    var count: Int { list.count }

    /// `e` as held, its values taken over (each is swapped out of the event for an empty
    /// one, so nothing is retained and released again as the event goes).
    mutating func hold(seq: Int64, _ e: inout Event) -> HeldEvent {
        var properties: [String: JSONValue] = [:]
        swap(&properties, &e.properties)
        return HeldEvent(seq: seq, time: e.time, parts: intern(&e), properties: properties)
    }

    /// The index of `e`'s name, step and context, taking them over.
    private mutating func intern(_ e: inout Event) -> Int32 {
        var parts = Parts(rawName: "", step: nil, context: EventContext())
        swap(&parts.rawName, &e.rawName)
        swap(&parts.step, &e.step)
        swap(&parts.context, &e.context)
        guard let bits = Bits(parts) else {
            add(parts)
            return Int32(list.count - 1)
        }
        let slot = Int(truncatingIfNeeded: bits.mix >> 1) & (EventParts.recentSlots - 1)
        if recent[slot] >= 0 && recentBits[slot] == bits { return recent[slot] }
        let i: Int32
        if let known = index[bits] {
            i = known
        } else {
            i = Int32(list.count)
            add(parts)
            index[bits] = i
        }
        recent[slot] = i
        recentBits[slot] = bits
        return i
    }

    private mutating func add(_ parts: Parts) {
        var contextID: Int32 = -1
        if let bits = Bits(parts.context) {
            if let c = contexts[bits] {
                contextID = c
            } else {
                contextID = contextCount
                contexts[bits] = contextID
                contextCount += 1
            }
        }
        list.append(parts)
        derived.append(Derived(known: EventName(normalizing: parts.rawName), contextID: contextID))
    }

    /// Positions of `held` in fold order (time, then seq).
    static func foldOrder(_ held: [HeldEvent]) -> [Int] {
        held.foldOrderIndices(time: { $0.time.micros }, seq: { $0.seq })
    }
}

/// One input's touched journeys, waiting to be folded: the events buffered per user and
/// flow (nil: fold from the log), in first-touch order.
struct PendingFold: Sendable {
    var order: [ProjectionUpdater.Key]
    var buffered: [ProjectionUpdater.Key: [HeldEvent]?]
    /// The parts the held events refer to.
    var parts: EventParts
    /// The input's first seq (`.max` when it added no events).
    var firstSeq: Int64
    /// Users whose first events in the store came with this input.
    var newUsers: Set<String>
    /// The store's last seq with this input in: the watermark once its journeys are written.
    var through: Int64
}

/// A pending fold handed to the thread that folds it, so that the thread holds its only
/// reference (and can let go of each journey's events as it goes).
final class PendingBox: @unchecked Sendable {
    private var value: PendingFold?
    let through: Int64

    init(_ value: PendingFold) {
        self.value = value
        through = value.through
    }

    func take() -> PendingFold? {
        defer { value = nil }
        return value
    }
}

/// One folded journey, ready to be written.
struct FoldedRow: Sendable {
    var key: ProjectionUpdater.Key
    var outcome: FoldOutcome
    /// Folded again from the log (an outcome without events then removes the row).
    var fromLog: Bool
}

/// The fold of a committed input, running off the writing thread: it hands over its rows a
/// chunk at a time (at most `capacity` chunks wait, so encoded rows do not pile up), and the
/// writing thread writes them between the batches of the next input.
final class DeferredFold: @unchecked Sendable {
    enum Next {
        case rows([FoldedRow])
        case end(Result<ProjectionUpdater.Counts, StoreError>)
    }
    private let condition = NSCondition()
    private var chunks: [[FoldedRow]] = []
    private var result: Result<ProjectionUpdater.Counts, StoreError>?
    private var abandoned = false
    private var writerWaits = false
    private let capacity = 2
    /// The watermark once every row is written.
    let through: Int64

    init(through: Int64) { self.through = through }

    /// On the folding thread: waits while `capacity` chunks wait to be written.
    func push(_ rows: [FoldedRow]) {
        condition.lock()
        defer { condition.unlock() }
        while chunks.count >= capacity && !abandoned { condition.wait() }
        if abandoned { return }
        chunks.append(rows)
        condition.broadcast()
    }

    func finish(_ r: Result<ProjectionUpdater.Counts, StoreError>) {
        condition.lock()
        result = r
        condition.broadcast()
        condition.unlock()
    }

    /// The next chunk or the end; with `wait` false, nil when neither is ready.
    func next(wait: Bool) -> Next? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if !chunks.isEmpty {
                condition.broadcast()
                return .rows(chunks.removeFirst())
            }
            if let result { return .end(result) }
            if !wait { return nil }
            writerWaits = true
            condition.wait()
        }
    }

    /// Whether the writing thread has waited for this fold: it has nothing else to do, so
    /// the fold may take both cores.
    var isAwaited: Bool {
        condition.lock()
        defer { condition.unlock() }
        return writerWaits
    }

    /// Nobody will write the rows (the ingest failed): the folding thread stops waiting.
    func abandon() {
        condition.lock()
        abandoned = true
        chunks.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}

/// What folding an input needs besides the store.
struct FoldContext: Sendable {
    let definitions: [String: FlowDefinition]
    let contexts: [String: FlowContext]
    /// Threads that fold: 2 on the writing thread (it waits anyway), 1 beside it.
    let workers: Int
    /// Beside the writing thread: true once the writer waits for the fold (then 2 fold).
    var awaited: (@Sendable () -> Bool)? = nil

    /// Folds each touched journey of `p` the cheapest exact way, reading only: from its
    /// buffered events alone (a user new with this input), going on from its stored fold (which
    /// must cover exactly the earlier events, all before the new ones in fold order), or
    /// again from the log. Hands each outcome to `emit` in `p.order`.
    /// Each journey's buffered events are let go once planned.
    func fold(_ p: inout PendingFold, in db: Database,
              emit: ([FoldedRow]) throws -> Void) throws -> ProjectionUpdater.Counts {
        var counts = ProjectionUpdater.Counts()
        let load = try RawStatement(db, "SELECT definition, data FROM journeys WHERE flow = ? AND user_id = ?")
        // A chunk of journeys at a time (so that resumed folds and encoded rows do not pile
        // up): 1. decide how each is folded (reads the store); 2. fold and encode them
        // (pure work; each worker writes only its own indices of the results); 3. emit.
        // (Small enough that a fold beside the writer soon takes both cores once it is awaited.)
        let chunk = 1_024
        // The journeys with held events first: they need no log reads, so their events are let
        // go at the fold's start instead of over all of it. (Folding many users from the log can
        // take as long as the next input, whose held events then grow beside these: the 160 k-
        // user ingest's peak held both inputs'.)
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
            // early past `logBytesPerChunk` of them.
            var logBytes = 0
            for (offset, key) in p.order[start..<end].enumerated() {
                if logBytes > ProjectionUpdater.logBytesPerChunk {
                    end = start + offset
                    break
                }
                let definition = definitions[key.flow]
                let context = contexts[key.flow] ?? FlowContext(definition)
                if let held = p.buffered.removeValue(forKey: key) ?? nil {
                    if p.newUsers.contains(key.user) {
                        plans.append(.fold(nil, held))
                        counts.fromMemory += 1
                        continue
                    }
                    if let fold = try resumable(key, events: held, firstSeq: p.firstSeq, context: context,
                                                load: load, in: db) {
                        plans.append(.fold(fold, held))
                        counts.resumed += 1
                        continue
                    }
                }
                let stored = try EventStore.storedLines(user: key.user, flow: key.flow, in: db)
                logBytes += stored.byteCount
                plans.append(.log(stored))
                counts.fromLog += 1
            }
            let work = FoldWork(plans: plans, keys: Array(p.order[start..<end]), parts: p.parts.list, derived: p.parts.derived,
                                definitions: definitions, contexts: contexts)
            let results = ProjectionStore.foldAll(work, workers: awaited?() == true ? 2 : workers)
            defer { results.release() }
            var rows: [FoldedRow] = []
            rows.reserveCapacity(end - start)
            for i in 0..<(end - start) {
                var fromLog = false
                if case .log = plans[i] { fromLog = true }
                rows.append(FoldedRow(key: work.keys[i], outcome: results.take(i) ?? .none, fromLog: fromLog))
            }
            plans = []
            try emit(rows)
            start = end
        }
        return counts
    }

    /// The stored fold of `key`, when it covers exactly the events before `firstSeq` and
    /// `events` all come after them in fold order.
    private func resumable(_ key: ProjectionUpdater.Key, events: [HeldEvent], firstSeq: Int64, context: FlowContext,
                           load: RawStatement, in db: Database) throws -> JourneyFold? {
        guard firstSeq != .max, let minTime = events.map(\.time.micros).min() else { return nil }
        load.reset()
        load.text(1, key.flow)
        load.text(2, key.user)
        defer { load.reset() }
        guard try load.step("reading the journey of \(key.user) in \(key.flow)"),
              load.string(0) == context.fingerprint else { return nil }
        guard let (journey, state) = try? Journey.decode(binary: load.bytes(1), names: context.names),
              let state, journey.lastEventAt.micros <= minTime else { return nil }
        let prior = try EventStore.priorEvents(user: key.user, flow: key.flow, before: firstSeq, in: db)
        guard prior.count == journey.events, prior.lastMicros == journey.lastEventAt.micros else { return nil }
        return JourneyFold(resuming: journey, state, definition: context.definition, knownSteps: context.knownSteps)
    }
}

extension ProjectionStore {
    /// Writes one folded journey (or removes a journey the log no longer has events for).
    static func apply(_ row: FoldedRow, contexts: [String: FlowContext], in db: Database) throws {
        let key = row.key
        switch row.outcome {
        case .row(let e):
            try write(e, context: contexts[key.flow] ?? FlowContext(nil), in: db)
        case .failed(let message):
            throw StoreError(doing: "folding the journey of \(key.user) in \(key.flow)", reason: message)
        case .none:
            // A plan from buffered events always has events; one from the log may not.
            if row.fromLog {
                try remove(flow: key.flow, user: key.user, in: db)
            }
        }
    }

    /// The watermark: every event up to this seq is in the journeys.
    static func watermark(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT seq FROM journeys_watermark WHERE id = 1") ?? 0
    }

    static func setWatermark(_ seq: Int64, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE journeys_watermark SET seq = ? WHERE id = 1").execute(arguments: [seq])
    }

    /// Adds to `p`, to be folded from the log, every user and flow with events past the
    /// watermark that came before this input (left unfolded by an ingest that was killed).
    static func addMissing(to p: inout PendingFold, in db: Database) throws {
        let watermark = try watermark(in: db)
        let before = p.firstSeq == .max ? p.through + 1 : p.firstSeq
        let missing = (watermark + 1)..<max(watermark + 1, before)
        guard try EventStore.hasEvents(in: missing, in: db) else { return }
        for (user, flow) in try EventStore.usersAndFlows(withEventsIn: missing, in: db) {
            let key = ProjectionUpdater.Key(flow: flow, user: user)
            if p.buffered.updateValue(nil, forKey: key) == nil { p.order.append(key) }
        }
    }

    /// The users of `flow` with events past the watermark (journeys an ingest left unfolded).
    static func usersPastWatermark(flow: String, in db: Database) throws -> [String] {
        let watermark = try watermark(in: db)
        guard try EventStore.hasEvents(after: watermark, in: db) else { return [] }
        return try EventStore.users(of: flow, withEventsAfter: watermark, in: db)
    }
}
