import Foundation
import FunnelModel
import ClickHouseStore
import Journeys
import Workers

/// The report facts of each journey, kept on the shard that holds the user's events: folded
/// from the log the first time a report needs them (again when the user has newer events or
/// the definition changed), read back as one short row per user after that. A row is the
/// user's only while its `through_seq` is the user's latest seq in the flow: nothing else
/// tells a stale row, so a killed writer cannot leave a wrong one.
public enum ClickHouseFacts {
    public static let migrations: [ClickHouseSchema.Migration] = [
        ClickHouseSchema.Migration(name: "projections-v1-journey-facts") { _ in
            ["""
                CREATE TABLE IF NOT EXISTS journey_facts (
                    flow String, fingerprint String, user_id String, through_seq UInt64, last_us Int64, facts String
                ) ENGINE = ReplacingMergeTree(through_seq) ORDER BY (flow, fingerprint, user_id)
                """]
        },
    ]

    /// The columns of a `journey_facts` row, in the order `appendRow` writes them.
    static let factsColumns = ["flow", "fingerprint", "user_id", "through_seq", "last_us", "facts"]

    /// Appends one `journey_facts` row: a journey's facts folded through `throughSeq`, its
    /// last event at `lastMicros`.
    static func appendRow(to rows: inout RowBinaryWriter, flow: String, fingerprint: String, user: String, throughSeq: Int64,
                          lastMicros: Int64, facts: JourneyFacts) {
        rows.string(flow)
        rows.string(fingerprint)
        rows.string(user)
        rows.uint64(UInt64(throughSeq))
        rows.int64(lastMicros)
        rows.string(bytes: facts.binary())
    }

    /// Streams the facts of every journey of `flow` as of `asOf`, as `ProjectionStore.forEachFacts`
    /// does on SQLite: false when facts cannot stand for this definition's journeys. `refolds`
    /// is told of the journeys folded again for `asOf`, as each bucket finds and folds them.
    public static func forEachFacts(store: ClickHouseStore, flow: String, definition: FlowDefinition, asOf: Timestamp,
                                    refolds: RefoldProgress? = nil, _ body: (JourneyFacts) throws -> Void) throws -> Bool {
        guard JourneyFacts.supports(definition) else { return false }
        let folder = FlowFolder(definition)
        let snapshot = try store.snapshot()
        for server in store.servers {
            let scope = Scope(store: store, server: server, snapshot: snapshot, flow: flow, fingerprint: folder.fingerprint)
            // One pass over the shard says whether any journey needs folding: most reports fold none.
            if let plan = try scope.foldPlan() {
                for bucket in 0..<plan.buckets { try refresh(scope, bucket: bucket, of: plan.buckets, folder: folder, allStale: plan.allStale) }
            }
            let readBuckets = Scope.buckets(try scope.factsRowCount(), Tuning.factsPerAnswer)
            for bucket in 0..<readBuckets {
                try read(scope, bucket: bucket, of: readBuckets, folder: folder, asOf: asOf, refolds: refolds, body)
            }
        }
        return true
    }

    /// Folds the journeys whose facts rows are missing or behind, for every flow of the store
    /// that a definition (with facts) describes: what an ingest does once its inputs are in,
    /// so that the next report only reads. The buckets of every shard are folded by
    /// `Tuning.foldWorkers` threads: one folds while a server sorts the next bucket. Returns
    /// how many journeys were folded.
    @discardableResult
    public static func refresh(store: ClickHouseStore, definitions: [FlowDefinition]) throws -> Int {
        let flows = Set(try store.flows())
        let snapshot = try store.snapshot()
        var jobs: [Job] = []
        for definition in definitions where flows.contains(definition.id) && JourneyFacts.supports(definition) {
            let folder = FlowFolder(definition)
            for server in store.servers {
                let scope = Scope(store: store, server: server, snapshot: snapshot, flow: definition.id, fingerprint: folder.fingerprint)
                guard let plan = try scope.foldPlan() else { continue }
                for bucket in 0..<plan.buckets {
                    jobs.append(Job(scope: scope, bucket: bucket, of: plan.buckets, folder: folder, allStale: plan.allStale))
                }
            }
        }
        return try Job.runAll(jobs, workers: Tuning.foldWorkers)
    }

    /// One bucket of one shard's journeys of a flow to fold.
    struct Job: Sendable {
        let scope: Scope
        let bucket: Int64
        let of: Int64
        let folder: FlowFolder
        /// No facts row of the definition on the shard: every user is folded, none looked up.
        let allStale: Bool

        /// Runs `jobs` on up to `workers` threads, each taking the next job not yet taken; the
        /// first failure stops them and is thrown. Returns how many journeys were folded.
        static func runAll(_ jobs: [Job], workers: Int) throws -> Int {
            try jobs.parallelMap(workers: workers) { job in
                try refresh(job.scope, bucket: job.bucket, of: job.of, folder: job.folder, allStale: job.allStale)
            }.reduce(0, +)
        }
    }

    /// Drops every facts row and folds them all again from the log; how many journeys. The
    /// store's `writers` table says that a rebuild runs, until it ends.
    public static func rebuild(store: ClickHouseStore, definitions: [FlowDefinition]) throws -> Int {
        let writing = try store.startWriting("rebuild")
        defer { writing.end() }
        for server in store.servers {
            try server.execute("TRUNCATE TABLE journey_facts", doing: "dropping the journeys on \(server.server)")
        }
        return try refresh(store: store, definitions: definitions)
    }

    /// One shard's part of a flow, as one snapshot of the ledger sees it.
    struct Scope: Sendable {
        let store: ClickHouseStore
        let server: ClickHouseClient
        let snapshot: ClickHouseStore.Snapshot
        let flow: String
        let fingerprint: String

        var events: String { store.layout.shardEvents }
        var inFlow: String { "\(snapshot.clause) AND flow = \(ClickHouseSQL.quote(flow))" }
        var doing: String { "folding the journeys of \(flow) on \(server.server)" }

        /// Each user's latest seq in the flow (in one bucket).
        func latest(_ bucket: String) -> String {
            "SELECT user_id, max(seq) AS latest FROM \(events) WHERE \(inFlow)\(bucket) GROUP BY user_id"
        }

        /// The facts rows of this definition.
        var factsRows: String {
            "journey_facts WHERE flow = \(ClickHouseSQL.quote(flow)) AND fingerprint = \(ClickHouseSQL.quote(fingerprint))"
        }

        static func buckets(_ total: Int64, _ perBucket: Int64) -> Int64 { max(1, (total + perBucket - 1) / perBucket) }

        /// The facts rows of this definition on the shard: at least its users with facts (a
        /// replaced row counts until the server merges it away), so enough to size buckets by.
        func factsRowCount() throws -> Int64 {
            var count: UInt64 = 0
            try store.rows(server, "SELECT count() FROM \(factsRows)", doing: doing) { count = try $0.uint64() }
            return Int64(clamping: count)
        }

        /// How the shard's journeys whose facts row is missing or behind their events are
        /// folded; nil when there are none (most reports, and most ingests once their inputs
        /// are in).
        struct FoldPlan {
            /// Hash buckets of users, each read in one answer.
            var buckets: Int64
            /// Every journey is stale: folded without looking the facts rows up.
            var allStale: Bool
        }

        func foldPlan() throws -> FoldPlan? {
            var users: UInt64 = 0, stale: UInt64 = 0
            try store.rows(server, """
                SELECT count(), sum((user_id, latest) NOT IN (SELECT user_id, through_seq FROM \(factsRows)))
                FROM (\(latest("")))
                """, doing: doing) { r in
                users = try r.uint64()
                stale = try r.uint64()
            }
            guard stale > 0 else { return nil }
            // Sized by the shard's lines (every flow's, every attempt's: never fewer bytes than
            // the flow's), summed from their 4-byte lengths; the stale users' share of it,
            // since users fall into buckets by hash.
            var bytes: Int64 = 0
            try store.rows(server, "SELECT toInt64(sum(line_length)) FROM \(events)", doing: doing) { bytes = try $0.int64() }
            let staleBytes = Int64(Double(bytes) * Double(stale) / Double(max(users, 1)))
            return FoldPlan(buckets: Scope.buckets(staleBytes, Tuning.foldBytes), allStale: stale == users)
        }

        /// Streams the events of `users` (a subquery or a list; nil: every user), grouped by
        /// user in fold order, without their lines' text (folding does not read it).
        func forEachUser(in users: String?, bucket: String, _ body: ([RecordedEvent]) throws -> Void) throws {
            var lines = try store.recordedLines()
            var group: [RecordedEvent] = []
            let among = users.map { " AND user_id IN \($0)" } ?? ""
            try store.rows(server, """
                SELECT \(RecordedLines.columns) FROM \(events) WHERE \(inFlow)\(bucket)\(among)
                ORDER BY user_id, ts_us, seq
                """, doing: doing) { r in
                let event = try lines.event(from: &r, keepLine: false)
                if let first = group.first, first.event.userID != event.event.userID {
                    try body(group)
                    group.removeAll(keepingCapacity: true)
                }
                group.append(event)
            }
            if !group.isEmpty { try body(group) }
        }
    }

    /// Folds the users of a bucket whose facts row is missing or behind their events (every
    /// user when `allStale`), and writes their rows; how many.
    @discardableResult
    static func refresh(_ scope: Scope, bucket: Int64, of count: Int64, folder: FlowFolder, allStale: Bool = false) throws -> Int {
        let inBucket = ClickHouseStore.bucket(bucket, of: count)
        let stale = """
            (SELECT user_id FROM (\(scope.latest(inBucket)))
             WHERE (user_id, latest) NOT IN (SELECT user_id, through_seq FROM \(scope.factsRows)\(inBucket)))
            """
        var rows = RowBinaryWriter()
        var held = 0
        var folded = 0
        func flush() throws {
            guard held > 0 else { return }
            try scope.server.insert(into: "journey_facts", columns: factsColumns,
                                    rows: rows, doing: "writing the journeys of \(scope.flow)")
            rows.removeAll()
            held = 0
        }
        try scope.forEachUser(in: allStale ? nil : stale, bucket: inBucket) { events in
            guard let facts = folder.facts(of: events), let user = events.first?.event.userID else { return }
            appendRow(to: &rows, flow: scope.flow, fingerprint: folder.fingerprint, user: user,
                      throughSeq: events.map(\.seq).max() ?? 0, lastMicros: events.map(\.event.time.micros).max() ?? 0, facts: facts)
            held += 1
            folded += 1
            if held >= Tuning.factsRowsPerInsert { try flush() }
        }
        try flush()
        return folded
    }

    /// Streams a bucket's facts rows that are current; a journey with events after `asOf` is
    /// folded again from the log up to it (left out when it had not begun by then).
    static func read(_ scope: Scope, bucket: Int64, of count: Int64, folder: FlowFolder, asOf: Timestamp,
                     refolds: RefoldProgress? = nil, _ body: (JourneyFacts) throws -> Void) throws {
        let inBucket = ClickHouseStore.bucket(bucket, of: count)
        var facts = JourneyFacts.empty
        var later: [String] = []
        try scope.store.rows(scope.server, """
            SELECT user_id, last_us, facts FROM \(scope.factsRows)\(inBucket)
              AND (user_id, through_seq) IN (\(scope.latest(inBucket)))
            ORDER BY user_id LIMIT 1 BY user_id
            """, doing: scope.doing) { r in
            let user = try r.string()
            let last = try r.int64()
            let bytes = try r.bytesOfString()
            if last > asOf.micros {
                // A journey that began after `asOf` is left out without reading the log.
                if try bytes.withUnsafeBytes({ try JourneyFacts.firstEventAt($0) }) <= asOf.micros { later.append(user) }
                return
            }
            try bytes.withUnsafeBytes { try facts.decode($0) }
            try body(facts)
        }
        guard !later.isEmpty else { return }
        refolds?.expect(later.count)
        try scope.forEachUser(in: ClickHouseSQL.list(strings: later), bucket: inBucket) { events in
            let cut = folder.facts(of: events, until: asOf)
            refolds?.folded()
            if let cut { try body(cut) }
        }
    }
}
