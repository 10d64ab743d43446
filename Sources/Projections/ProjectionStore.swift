import Foundation
import FunnelModel
import EventStore
import GRDB

/// The journeys projection in the event store: one row per user and flow, folded from the
/// log, updated by ingest (in the input's transaction or the next one's; the watermark says
/// which events are in), rebuildable from the log.
public enum ProjectionStore {
    /// The projection's tables, registered after the store's own migrations.
    public static let migrations: [StoreMigration] = [
        StoreMigration(name: "projections-v1-journeys") { db in
            try db.create(table: "journeys") { t in
                t.column("flow", .text).notNull()
                t.column("user_id", .text).notNull()
                t.primaryKey(["flow", "user_id"])
                t.column("started_us", .integer)
                t.column("completed_us", .integer)
                t.column("last_us", .integer).notNull()
                t.column("current_step", .text)
                t.column("lane", .text)
                // The definition the journey was folded with; a changed definition refolds.
                t.column("definition", .text).notNull()
                t.column("data", .blob).notNull()
                // JourneyFacts for reports (NULL without a definition).
                t.column("facts", .blob)
            }
            try db.create(index: "journeys_last", on: "journeys", columns: ["last_us"])
            // Finding journeys folded with another definition reads this index, not the rows.
            try db.create(index: "journeys_definition", on: "journeys", columns: ["flow", "definition", "user_id"])
        },
        // The watermark: the journeys hold every event up to this seq. An ingest writes an
        // input's journeys after the input (in the next one's transaction); one killed in
        // between leaves events past the watermark, folded by whoever reads the store next.
        StoreMigration(name: "projections-v2-watermark") { db in
            try db.execute(sql: "CREATE TABLE journeys_watermark (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL)")
            try db.execute(sql: "INSERT INTO journeys_watermark (id, seq) SELECT 1, coalesce(max(seq), 0) FROM events")
        },
        // The report facts in a narrow table of their own: a report scans about 180 bytes a
        // journey instead of the whole rows (1.4 KB on average, with the folded journey).
        StoreMigration(name: "projections-v3-facts-table") { db in
            try db.execute(sql: """
                CREATE TABLE journey_facts (
                    flow TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    last_us INTEGER NOT NULL,
                    facts BLOB,
                    PRIMARY KEY (flow, user_id)
                ) WITHOUT ROWID
                """)
            try db.execute(sql: "INSERT INTO journey_facts (flow, user_id, last_us, facts) SELECT flow, user_id, last_us, facts FROM journeys")
            try db.execute(sql: "ALTER TABLE journeys DROP COLUMN facts")
        },
        // Readable from outside: each user's journey as text (see docs/store.md).
        StoreMigration(name: "projections-v4-journey-state-view") { db in
            try db.execute(sql: JourneyStateView.sql)
        },
    ]

    /// A fingerprint of a definition: journeys folded with another one are refolded.
    public static func fingerprint(_ definition: FlowDefinition?) -> String {
        guard let definition else { return "none" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(definition)) ?? Data()
        // FNV-1a 64: a change detector, not a security boundary.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return "\(definition.id)@\(definition.version):" + String(hash, radix: 16)
    }

    /// Folds one user's journey in one flow from the log and writes (or removes) its row.
    @discardableResult
    public static func refold(user: String, flow: String, definition: FlowDefinition?, in db: Database) throws -> Journey? {
        try refold(user: user, flow: flow, context: FlowContext(definition), in: db)
    }

    @discardableResult
    static func refold(user: String, flow: String, context: FlowContext, in db: Database) throws -> Journey? {
        let events = try EventStore.events(user: user, flow: flow, in: db)
        guard let fold = JourneyFold.fold(events, definition: context.definition) else {
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

    /// A journey's row values, computed off the writing thread.
    static func encode(_ j: Journey, context: FlowContext, resume: JourneyFold.Resume?) -> EncodedJourney {
        let facts = context.definition.flatMap { d in
            JourneyFacts.supports(d)
                ? Data(JourneyFacts(j, definition: d, slots: context.slots, prepared: context.facts ?? JourneyFacts.Prepared(d)).binary())
                : nil
        }
        return EncodedJourney(flow: j.flow, userID: j.userID, startedUs: j.startedAt?.micros, completedUs: j.completedAt?.micros,
                              lastUs: j.lastEventAt.micros, currentStep: j.currentStep, lane: j.lane,
                              data: Data(j.binary(resume: resume, names: context.names)), facts: facts)
    }

    static func write(_ e: EncodedJourney, context: FlowContext, in db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO journeys (flow, user_id, started_us, completed_us, last_us, current_step, lane, definition, data)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(flow, user_id) DO UPDATE SET started_us = excluded.started_us,
              completed_us = excluded.completed_us, last_us = excluded.last_us,
              current_step = excluded.current_step, lane = excluded.lane,
              definition = excluded.definition, data = excluded.data
            """)
        try statement.execute(arguments: [e.flow, e.userID, e.startedUs, e.completedUs, e.lastUs,
                                          e.currentStep, e.lane, context.fingerprint, e.data])
        let facts = try db.cachedStatement(sql: """
            INSERT INTO journey_facts (flow, user_id, last_us, facts) VALUES (?, ?, ?, ?)
            ON CONFLICT(flow, user_id) DO UPDATE SET last_us = excluded.last_us, facts = excluded.facts
            """)
        try facts.execute(arguments: [e.flow, e.userID, e.lastUs, e.facts])
    }

    /// Removes a journey (the log has no events for it).
    static func remove(flow: String, user: String, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM journeys WHERE flow = ? AND user_id = ?").execute(arguments: [flow, user])
        try db.cachedStatement(sql: "DELETE FROM journey_facts WHERE flow = ? AND user_id = ?").execute(arguments: [flow, user])
    }

    /// Drops every journey and folds them again from the log. Returns how many journeys.
    /// Lines are read a chunk of users at a time and decoded and folded on both cores.
    @discardableResult
    public static func rebuild(store: EventStore, definitions: [FlowDefinition]) throws -> Int {
        let byID = Dictionary(definitions.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let contexts = byID.mapValues { FlowContext($0) }
        return try store.writer.write { db in
            try db.execute(sql: "DELETE FROM journeys")
            try db.execute(sql: "DELETE FROM journey_facts")
            var count = 0
            var pending: [(key: ProjectionUpdater.Key, lines: StoredLines)] = []
            var pendingBytes = 0
            func flush() throws {
                guard !pending.isEmpty else { return }
                let work = FoldWork(plans: pending.map { .log($0.lines) }, keys: pending.map(\.key), parts: [], derived: [],
                                    definitions: byID, contexts: contexts)
                let results = foldAll(work)
                defer { results.release() }
                for i in work.keys.indices {
                    let key = work.keys[i]
                    switch results.take(i) {
                    case .row(let e)?:
                        try write(e, context: contexts[key.flow] ?? FlowContext(nil), in: db)
                        count += 1
                    case .failed(let message)?:
                        throw StoreError(doing: "rebuilding the journey of \(key.user) in \(key.flow)", reason: message)
                    case .none?, nil:
                        break
                    }
                }
                pending.removeAll(keepingCapacity: true)
                pendingBytes = 0
            }
            try EventStore.forEachUsersLines(in: db) { user, flow, lines in
                pending.append((ProjectionUpdater.Key(flow: flow, user: user), lines))
                pendingBytes += lines.byteCount
                if pendingBytes > ProjectionUpdater.logBytesPerChunk { try flush() }
            }
            try flush()
            try setWatermark(try EventStore.lastSeq(in: db), in: db)
            return count
        }
    }

    /// Every journey of a flow, refolding from the log the ones folded with another
    /// definition than `definition`.
    public static func journeys(flow: String, definition: FlowDefinition?, store: EventStore) throws -> [Journey] {
        var out: [Journey] = []
        try forEachJourney(flow: flow, definition: definition, store: store) { out.append($0) }
        let order = out.indices.sorted { out[$0].userID.utf8.lexicographicallyPrecedes(out[$1].userID.utf8) }
        return order.map { out[$0] }
    }

    /// Refolds the journeys of a flow folded with another definition than `definition`, and
    /// folds the ones an ingest left past the watermark (it was killed before writing them).
    static func refoldStale(flow: String, context: FlowContext, store: EventStore) throws {
        let stale = try store.writer.read { db in
            let changed = try String.fetchAll(db, sql: "SELECT user_id FROM journeys WHERE flow = ? AND definition <> ?",
                                              arguments: [flow, context.fingerprint])
            let missing = try usersPastWatermark(flow: flow, in: db)
            let known = Set(changed)
            return changed + missing.filter { !known.contains($0) }
        }
        if !stale.isEmpty {
            try store.writer.write { db in
                for user in stale { try refold(user: user, flow: flow, context: context, in: db) }
            }
        }
    }

    /// Streams the report facts of every journey of a flow folded with `definition` (stale
    /// ones are refolded first). A journey with events after `asOf` is folded again from the
    /// log up to `asOf` (left out when it had not begun by then). Nil when facts cannot
    /// stand for this definition's journeys: use `forEachJourney`.
    public static func forEachFacts(flow: String, definition: FlowDefinition, store: EventStore, asOf: Timestamp,
                                    _ body: (JourneyFacts) throws -> Void) throws -> Bool {
        guard JourneyFacts.supports(definition) else { return false }
        let context = FlowContext(definition)
        try refoldStale(flow: flow, context: context, store: store)
        let slots = context.slots
        try store.writer.read { db in
            let statement = try RawStatement(db, "SELECT facts, last_us, user_id FROM journey_facts WHERE flow = ?")
            var facts = JourneyFacts.empty
            statement.text(1, flow)
            try statement.forEachRow("reading the journeys of \(flow)") {
                if statement.int64(1) > asOf.micros || statement.isNull(0) {
                    guard let user = statement.string(2) else {
                        throw StoreError(doing: "reading the journeys of \(flow)", reason: "a facts row without a user id")
                    }
                    let events = try EventStore.events(user: user, flow: flow, in: db)
                    if let cut = JourneyFold.journey(of: events, definition: definition, until: asOf) {
                        try body(JourneyFacts(cut, definition: definition, slots: slots))
                    }
                    return
                }
                do {
                    try facts.decode(statement.bytes(0))
                    try body(facts)
                } catch let e as JourneyDecodingError {
                    throw StoreError(doing: "reading the journeys of \(flow)", reason: "\(e)")
                }
            }
        }
        return true
    }

    /// Streams every journey of a flow in table order (memory does not grow with the number
    /// of users), refolding first the ones folded with another definition. With `asOf`, a
    /// journey with events after it is folded again from the log up to `asOf` (and left out
    /// when it had not begun by then), as `journeys(_:asOf:definition:store:)` does.
    public static func forEachJourney(flow: String, definition: FlowDefinition?, store: EventStore, asOf: Timestamp? = nil,
                                      _ body: (Journey) throws -> Void) throws {
        let context = FlowContext(definition)
        try refoldStale(flow: flow, context: context, store: store)
        try store.writer.read { db in
            // `+flow`: a table scan, not the primary key index and a row lookup per journey.
            let statement = try RawStatement(db, "SELECT data, definition, user_id FROM journeys WHERE +flow = ?")
            statement.text(1, flow)
            let cache = JourneyDecodingCache()
            /// The user's journey folded again from the log (up to `asOf`), when it had begun.
            func refolded(_ user: String) throws {
                let events = try EventStore.events(user: user, flow: flow, in: db)
                if let folded = JourneyFold.journey(of: events, definition: definition, until: asOf) { try body(folded) }
            }
            try statement.forEachRow("reading the journeys of \(flow)") {
                // A row another ingest folded with another definition since `refoldStale`
                // (its names are indexes into that one): folded again here from the log.
                guard statement.textEquals(1, context.fingerprint) else {
                    guard let user = statement.string(2) else {
                        throw StoreError(doing: "reading the journeys of \(flow)", reason: "a journey row without a user id")
                    }
                    try refolded(user)
                    return
                }
                let journey: Journey
                do {
                    journey = try Journey(binary: statement.bytes(0), cache: cache, names: context.names)
                } catch {
                    throw StoreError(doing: "reading the journeys of \(flow)", reason: "\(error)")
                }
                if let asOf, journey.lastEventAt > asOf {
                    try refolded(journey.userID)
                } else {
                    try body(journey)
                }
            }
        }
    }

    /// The store's as-of: the latest event time not after `now` (an event dated in the
    /// future does not move every user into "abandoned").
    public static func defaultAsOf(store: EventStore, now: Timestamp) throws -> Timestamp? {
        try store.latestEventTime(notAfter: now)
    }

    /// Journeys as of `asOf`: a journey with events after it is folded again from the log up
    /// to `asOf` (and left out when it had not begun by then).
    public static func journeys(_ journeys: [Journey], asOf: Timestamp, definition: FlowDefinition?,
                                store: EventStore) throws -> [Journey] {
        var out: [Journey] = []
        out.reserveCapacity(journeys.count)
        var later: [Journey] = []
        for j in journeys {
            if j.lastEventAt > asOf { later.append(j) } else { out.append(j) }
        }
        if !later.isEmpty {
            try store.writer.read { db in
                for j in later {
                    let events = try EventStore.events(user: j.userID, flow: j.flow, in: db)
                    if let cut = JourneyFold.journey(of: events, definition: definition, until: asOf) { out.append(cut) }
                }
            }
        }
        return out
    }
}

/// How a touched journey is folded at the end of an input.
enum FoldPlan: Sendable {
    /// From its held events (parts in `FoldWork`), going on from a stored fold or from nothing.
    case fold(JourneyFold?, [HeldEvent])
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
    let keys: [ProjectionUpdater.Key]
    /// The parts the plans' held events refer to.
    let parts: [EventParts.Parts]
    let derived: [EventParts.Derived]
    let definitions: [String: FlowDefinition]
    let contexts: [String: FlowContext]
}

extension ProjectionStore {
    /// Folds and encodes every plan of `work` on both cores (one core for a small chunk);
    /// each worker writes only its own indices of the results. Release them after use.
    static func foldAll(_ work: FoldWork, workers most: Int = 2) -> DisjointResults<FoldOutcome> {
        let results = DisjointResults<FoldOutcome>(count: work.plans.count)
        let workers = work.plans.count >= 64 ? most : 1
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            let parts = work.parts, derived = work.derived
            var i = w
            while i < work.plans.count {
                let key = work.keys[i]
                let definition = work.definitions[key.flow]
                let context = work.contexts[key.flow] ?? FlowContext(definition)
                var fold: JourneyFold?
                switch work.plans[i] {
                case .fold(let resumed, let held):
                    if resumed != nil || !held.isEmpty {
                        var going = resumed ?? JourneyFold(userID: key.user, flow: key.flow, definition: definition,
                                                           knownSteps: context.knownSteps)
                        for j in EventParts.foldOrder(held) {
                            going.apply(HeldView(held: held, parts: parts, derived: derived, i: j), explain: false)
                        }
                        fold = going
                    }
                case .log(let stored):
                    do {
                        fold = JourneyFold.fold(try stored.events(), definition: definition, knownSteps: context.knownSteps)
                    } catch {
                        results.set(i, .failed("\(error)"))
                        i += workers
                        continue
                    }
                }
                results.set(i, fold.map { .row(ProjectionStore.encode($0.finish(paths: context.paths), context: context, resume: $0.resume)) } ?? .none)
                i += workers
            }
        }
        return results
    }
}

/// Results written by concurrent workers at disjoint indices, read after they finished.
final class DisjointResults<T: Sendable>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<T?>
    private let count: Int

    init(count: Int) {
        self.count = count
        base = UnsafeMutablePointer<T?>.allocate(capacity: max(count, 1))
        base.initialize(repeating: nil, count: count)
    }

    func set(_ i: Int, _ value: T) { base[i] = value }

    /// The value at `i`, leaving nil there.
    func take(_ i: Int) -> T? {
        let v = base[i]
        base[i] = nil
        return v
    }

    func release() {
        base.deinitialize(count: count)
        base.deallocate()
    }
}

/// A journey's row, encoded.
struct EncodedJourney: Sendable {
    var flow: String
    var userID: String
    var startedUs: Int64?
    var completedUs: Int64?
    var lastUs: Int64
    var currentStep: String?
    var lane: String?
    var data: Data
    var facts: Data?
}

/// A flow definition with what saving journeys needs of it, computed once.
struct FlowContext: Sendable {
    let definition: FlowDefinition?
    let fingerprint: String
    let slots: [String: Int]
    /// The definition's step ids (built once, not once per journey folded).
    let knownSteps: Set<String>
    /// The names the definition gives: stored journeys write them as indexes into these.
    let names: JourneyNames
    /// Expected paths worked out so far (nil without a definition).
    let paths: ExpectedPaths?
    /// What facts need of the definition (nil without one).
    let facts: JourneyFacts.Prepared?

    init(_ definition: FlowDefinition?) {
        self.definition = definition
        paths = definition.map(ExpectedPaths.init)
        facts = definition.map(JourneyFacts.Prepared.init)
        knownSteps = Set(definition?.steps.map(\.id) ?? [])
        names = JourneyNames(definition)
        fingerprint = ProjectionStore.fingerprint(definition)
        var slots: [String: Int] = [:]
        let ordered: [String] = definition.map { JourneyFacts.slots($0) } ?? []
        for i in ordered.indices { slots[ordered[i]] = i }
        self.slots = slots
    }
}

/// The events of one input grouped by user and flow on the parsing thread (within a buffer
/// limit), their seq holding the line number until the input's `CommittedInput.accepted`
/// gives the real one. The parsing thread touches it while it reads the input; the writing thread
/// adopts it at the input's end (`ProjectionUpdater.willCommit`), after the parse finished.
final class ParsedGroups: ParsedEventSink, @unchecked Sendable {
    let bufferLimit: Int
    /// Users and flows in first-touch order.
    var order: [ProjectionUpdater.Key] = []
    /// Each of `order`'s list in `lists`, or -1: past the buffer limit, folded from the log.
    var slots: [Int] = []
    var lists: [[HeldEvent]] = []
    var parts = EventParts()
    private var count = 0
    /// Each key's index in `order`.
    private var index: [ProjectionUpdater.Key: Int] = [:]
    /// By the line's user number: the index in `order` of that user's first key, or -1. Most
    /// lines find their key here, without hashing the user id and flow.
    private var byUser: [Int32] = []

    init(bufferLimit: Int) { self.bufferLimit = bufferLimit }

    func take(line: Int, user: Int32, event: consuming Event) {
        let u = Int(user)
        let k: Int
        if u >= 0, u < byUser.count, byUser[u] >= 0, order[Int(byUser[u])].flow == event.flow {
            k = Int(byUser[u])
        } else {
            // The key takes the event's user and flow over (see `EventParts.hold`).
            var flow = "", id = ""
            swap(&flow, &event.flow)
            swap(&id, &event.userID)
            let key = ProjectionUpdater.Key(flow: flow, user: id)
            if u >= byUser.count { byUser.append(contentsOf: repeatElement(-1, count: u + 1 - byUser.count)) }
            if let known = index[key] {
                k = known
            } else {
                // A new key gets an empty list, or none past the limit.
                k = order.count
                order.append(key)
                index[key] = k
                if u >= 0, byUser[u] < 0 { byUser[u] = Int32(k) }
                if count < bufferLimit {
                    slots.append(lists.count)
                    lists.append([])
                } else {
                    slots.append(-1)
                }
            }
        }
        let i = slots[k]
        guard i >= 0 else { return }
        if count >= bufferLimit {
            count -= lists[i].count
            lists[i] = []
            slots[k] = -1
            return
        }
        lists[i].append(parts.hold(seq: Int64(line), &event))
        count += 1
    }
}

/// Keeps the journeys projection current during ingest, so a late or out-of-order event gives
/// the same journey as a rebuild. An input's journeys are written in its own transaction (the
/// last input of an ingest) or in the next input's (folded beside it after the input
/// commits); `journeys_watermark` says up to which seq they are complete.
///
/// The input's new events are kept in memory (without their lines). At the end of the input,
/// each touched user and flow is folded the cheapest exact way:
/// - no events before this input (the common case in a cold ingest): from those events;
/// - a stored journey that covers exactly the earlier events (same count, same definition)
///   and new events that all come after them in fold order: the stored fold goes on;
/// - otherwise (a late or out-of-order event, a changed definition): again from the log.
/// Buffered events are capped at `bufferLimit`: past it, a user's buffer is dropped and the
/// user refolded from the log, so memory does not grow with the input.
public final class ProjectionUpdater: IngestObserver, @unchecked Sendable {
    let definitions: [String: FlowDefinition]
    let contexts: [String: FlowContext]
    let bufferLimit: Int
    struct Key: Hashable, Sendable {
        var flow: String
        var user: String
    }
    /// How the last input's journeys were folded (for tests and tuning).
    public private(set) var lastCounts = Counts()
    /// The input whose journeys were left for after its commit, and the fold of the one
    /// that committed (running off the writing thread).
    private var prepared: PendingBox?
    private var running: DeferredFold?

    public struct Counts: Sendable, Hashable {
        public var fromMemory = 0
        public var resumed = 0
        public var fromLog = 0
    }

    static let logBytesPerChunk = 4 << 20

    public init(definitions: [FlowDefinition], bufferLimit: Int = 250_000) {
        self.definitions = Dictionary(definitions.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        self.contexts = self.definitions.mapValues { FlowContext($0) }
        self.bufferLimit = bufferLimit
    }

    public func makeEventSink() -> any ParsedEventSink {
        ParsedGroups(bufferLimit: bufferLimit)
    }

    /// Moves what the parsing thread grouped into `pending`, with real seqs: events whose
    /// line was not accepted (a duplicate, a conflict) are dropped, and a user and flow left
    /// with none is not touched.
    private static func adopt(_ groups: ParsedGroups, accepted: AcceptedLines, into pending: inout PendingFold) {
        swap(&pending.parts, &groups.parts)
        for (k, key) in groups.order.enumerated() {
            let i = groups.slots[k]
            guard i >= 0 else {
                // Over the buffer limit: folded from the log.
                if pending.buffered.updateValue(nil, forKey: key) == nil { pending.order.append(key) }
                continue
            }
            // Taken out of the list (so that rewriting seqs does not copy them).
            var events: [HeldEvent] = []
            swap(&events, &groups.lists[i])
            var kept = 0
            for i in events.indices {
                if let s = accepted.seq(ofLine: Int(events[i].seq)) {
                    events[i].seq = s
                    if kept != i { events.swapAt(kept, i) }
                    kept += 1
                }
            }
            events.removeLast(events.count - kept)
            guard !events.isEmpty else { continue }
            if pending.buffered.updateValue(.some(events), forKey: key) == nil { pending.order.append(key) }
        }
    }

    /// Folds every touched journey once per input. The journeys of the input before (when
    /// they were left for later) are written first. With `more`, this input's journeys are
    /// folded after it commits, off the writing thread, while the next input is read, and
    /// written in the next input's transaction (or by `finish`); until then the watermark
    /// says they are missing, and whoever reads the store next folds them from the log.
    public func willCommit(_ input: CommittedInput, in db: Database) throws {
        var pending = PendingFold(order: [], buffered: [:], parts: EventParts(), firstSeq: input.firstSeq,
                                  newUsers: input.newUsers, through: input.lastSeq)
        if let groups = input.events as? ParsedGroups {
            ProjectionUpdater.adopt(groups, accepted: input.accepted, into: &pending)
        }
        // An input folded for later whose transaction did not commit: nothing to write.
        prepared = nil
        try writeDeferred(in: db, wait: true)
        try ProjectionStore.addMissing(to: &pending, in: db)
        if input.more && !pending.order.isEmpty {
            prepared = PendingBox(pending)
            return
        }
        let context = FoldContext(definitions: definitions, contexts: contexts, workers: 2)
        let counts = try context.fold(&pending, in: db) { rows in
            for row in rows { try ProjectionStore.apply(row, contexts: contexts, in: db) }
        }
        try ProjectionStore.setWatermark(pending.through, in: db)
        lastCounts = counts
    }

    /// Writes the rows of the input folded beside this one that are ready (between batches).
    public func betweenBatches(in db: Database) throws {
        try writeDeferred(in: db, wait: false)
    }

    /// Starts folding the input that just committed, when it was left for later.
    public func didCommit(store: EventStore) {
        guard let box = prepared else { return }
        prepared = nil
        let job = DeferredFold(through: box.through)
        let context = FoldContext(definitions: definitions, contexts: contexts, workers: 1, awaited: { job.isAwaited })
        running = job
        WorkerThread.folding.run {
            // The box's only reference: events are let go as the fold goes.
            guard var pending = box.take() else { return }
            do {
                try store.writer.read { db in
                    // Read through the page cache, not a map of the file: the ingest's memory
                    // stays the same however large the store grows.
                    try db.execute(sql: "PRAGMA mmap_size = 0")
                    let counts = try context.fold(&pending, in: db) { rows in job.push(rows) }
                    job.finish(.success(counts))
                }
            } catch {
                job.finish(.failure(StoreError(doing: "folding the journeys of an input", reason: "\(error)")))
            }
        }
    }

    /// Writes the journeys still being folded, in their own transaction.
    public func finish(store: EventStore) throws {
        prepared = nil
        guard running != nil else { return }
        try store.writer.write { db in try writeDeferred(in: db, wait: true) }
    }

    /// Writes what the fold beside the writing thread has handed over (all of it, waiting
    /// for the end, with `wait`), and the watermark once every row is in.
    private func writeDeferred(in db: Database, wait: Bool) throws {
        guard let job = running else { return }
        do {
            while let next = job.next(wait: wait) {
                switch next {
                case .rows(let rows):
                    for row in rows { try ProjectionStore.apply(row, contexts: contexts, in: db) }
                case .end(let result):
                    running = nil
                    lastCounts = try result.get()
                    try ProjectionStore.setWatermark(job.through, in: db)
                    return
                }
            }
        } catch {
            // The rows written so far go with the failed transaction: the watermark stays
            // behind them, and whoever reads the store next folds those users from the log.
            running = nil
            job.abandon()
            throw error
        }
    }

    deinit {
        running?.abandon()
    }
}
