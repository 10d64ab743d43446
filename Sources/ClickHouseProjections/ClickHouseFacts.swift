import Foundation
import FunnelModel
import EventStore
import Projections
import ClickHouseStore

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

    /// Streams the facts of every journey of `flow` as of `asOf`, as `ProjectionStore.forEachFacts`
    /// does on SQLite: false when facts cannot stand for this definition's journeys.
    public static func forEachFacts(store: ClickHouseStore, flow: String, definition: FlowDefinition, asOf: Timestamp,
                                    _ body: (JourneyFacts) throws -> Void) throws -> Bool {
        guard JourneyFacts.supports(definition) else { return false }
        let shape = Shape(definition)
        let snapshot = try store.snapshot()
        for server in store.servers {
            let scope = Scope(store: store, server: server, snapshot: snapshot, flow: flow, fingerprint: shape.fingerprint)
            let size = try scope.size()
            let foldBuckets = max(1, (size.bytes + Tuning.foldBytes - 1) / Tuning.foldBytes)
            for bucket in 0..<foldBuckets { try refresh(scope, bucket: bucket, of: foldBuckets, shape: shape) }
            let readBuckets = max(1, (size.users + Tuning.factsPerAnswer - 1) / Tuning.factsPerAnswer)
            for bucket in 0..<readBuckets { try read(scope, bucket: bucket, of: readBuckets, shape: shape, asOf: asOf, body) }
        }
        return true
    }

    /// What a definition's facts need, worked out once.
    struct Shape {
        let definition: FlowDefinition
        let fingerprint: String
        let slots: [String: Int]

        init(_ definition: FlowDefinition) {
            self.definition = definition
            fingerprint = ProjectionStore.fingerprint(definition)
            var slots: [String: Int] = [:]
            for (i, slot) in JourneyFacts.slots(definition).enumerated() { slots[slot] = i }
            self.slots = slots
        }

        func facts(_ events: [RecordedEvent], until: Timestamp? = nil) -> JourneyFacts? {
            JourneyFold.journey(of: events, definition: definition, until: until).map {
                JourneyFacts($0, definition: definition, slots: slots)
            }
        }
    }

    /// One shard's part of a flow, as one snapshot of the ledger sees it.
    struct Scope {
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

        func size() throws -> (bytes: Int64, users: Int64) {
            var out: (Int64, Int64) = (0, 0)
            try store.rows(server, "SELECT sum(length(line)), uniqExact(user_id) FROM \(events) WHERE \(inFlow)", doing: doing) { r in
                out = (Int64(bitPattern: try r.uint64()), Int64(bitPattern: try r.uint64()))
            }
            return out
        }

        /// Streams the events of `users` (a subquery or a list), grouped by user in fold order.
        func forEachUser(in users: String, bucket: String, _ body: ([RecordedEvent]) throws -> Void) throws {
            var lines = RecordedLines()
            var group: [RecordedEvent] = []
            try store.rows(server, """
                SELECT seq, line FROM \(events) WHERE \(inFlow)\(bucket) AND user_id IN \(users)
                ORDER BY user_id, ts_us, seq
                """, doing: doing) { r in
                let event = try lines.event(seq: Int64(try r.uint64()), line: try r.bytesOfString())
                if let first = group.first, first.event.userID != event.event.userID {
                    try body(group)
                    group.removeAll(keepingCapacity: true)
                }
                group.append(event)
            }
            if !group.isEmpty { try body(group) }
        }
    }

    /// Folds the users of a bucket whose facts row is missing or behind their events, and
    /// writes their rows.
    static func refresh(_ scope: Scope, bucket: Int64, of count: Int64, shape: Shape) throws {
        let inBucket = ClickHouseStore.bucket(bucket, of: count)
        let stale = """
            (SELECT user_id FROM (\(scope.latest(inBucket)))
             WHERE (user_id, latest) NOT IN (SELECT user_id, through_seq FROM \(scope.factsRows)\(inBucket)))
            """
        var rows = RowBinaryWriter()
        var held = 0
        func flush() throws {
            guard held > 0 else { return }
            try scope.server.insert(into: "journey_facts", columns: ["flow", "fingerprint", "user_id", "through_seq", "last_us", "facts"],
                                    rows: rows.data, doing: "writing the journeys of \(scope.flow)")
            rows.removeAll()
            held = 0
        }
        try scope.forEachUser(in: stale, bucket: inBucket) { events in
            guard let facts = shape.facts(events), let user = events.first?.event.userID else { return }
            rows.string(scope.flow)
            rows.string(shape.fingerprint)
            rows.string(user)
            rows.uint64(UInt64(events.map(\.seq).max() ?? 0))
            rows.int64(events.map(\.event.time.micros).max() ?? 0)
            rows.string(bytes: facts.binary())
            held += 1
            if held >= Tuning.factsRowsPerInsert { try flush() }
        }
        try flush()
    }

    /// Streams a bucket's facts rows that are current; a journey with events after `asOf` is
    /// folded again from the log up to it (left out when it had not begun by then).
    static func read(_ scope: Scope, bucket: Int64, of count: Int64, shape: Shape, asOf: Timestamp,
                     _ body: (JourneyFacts) throws -> Void) throws {
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
                later.append(user)
                return
            }
            try bytes.withUnsafeBytes { try facts.decode($0) }
            try body(facts)
        }
        guard !later.isEmpty else { return }
        try scope.forEachUser(in: ClickHouseSQL.list(strings: later), bucket: inBucket) { events in
            if let cut = shape.facts(events, until: asOf) { try body(cut) }
        }
    }
}
