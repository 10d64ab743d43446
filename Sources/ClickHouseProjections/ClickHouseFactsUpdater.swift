import Foundation
import FunnelModel
import ClickHouseStore
import StoreCore
import LineParsing
import Journeys
import Workers

/// Keeps the journeys' facts current during a ClickHouse ingest, as the SQLite store's
/// projection does, so that the next report only reads. Each committed input's events are
/// folded in memory (`HeldJourneys`) on a thread of their own while the next input is read.
/// Once the inputs are in, the facts of the journeys whose users had no events before the
/// ingest go to their users' shards; every other journey with new events is folded from the
/// log (`ClickHouseFacts.refresh`).
public final class ClickHouseFactsUpdater: IngestObserver, Sendable {
    let definitions: [FlowDefinition]
    /// Folded in order on `WorkerThread.folding`, off the writing thread, one input after another.
    private let held: HeldJourneys
    /// The attempts of this ingest's committed inputs, and how many journeys the last
    /// `finish` wrote from memory and folded from the log.
    private let state = Locked((attempts: [UInt64](), fromMemory: 0, fromLog: 0))

    /// How many journeys the last `finish` wrote from memory.
    public var fromMemory: Int { state.withLock { $0.fromMemory } }
    /// How many journeys the last `finish` folded from the log.
    public var fromLog: Int { state.withLock { $0.fromLog } }

    public init(definitions: [FlowDefinition]) {
        self.definitions = definitions
        held = HeldJourneys(definitions: definitions)
    }

    public func makeEventSink() -> any ParsedEventSink {
        held.makeEventSink()
    }

    /// Notes the input's attempt: this ingest's rows are those of its attempts.
    public func willCommit(_ input: CommittedInput, in attempt: ClickHouseAttempt) throws {
        state.withLock { $0.attempts.append(attempt.id) }
    }

    /// Folds the committed input's events, off the writing thread.
    public func didCommit(_ input: CommittedInput, store: ClickHouseStore) {
        let held = held, events = input.events, accepted = input.accepted
        WorkerThread.folding.run { held.add(events, accepted: accepted) }
    }

    public func finish(_ summary: IngestSummary, store: ClickHouseStore) throws {
        WorkerThread.folding.runAndWait {}
        guard summary.accepted > 0 else { return }
        let snapshot = try store.snapshot()
        let attempts = state.withLock { $0.attempts }
        var fromMemory = 0
        for flow in held.flows {
            fromMemory += try write(flow, store: store, snapshot: snapshot, attempts: attempts)
        }
        state.withLock { $0.fromMemory = fromMemory }
        let fromLog = try ClickHouseFacts.refresh(store: store, definitions: definitions)
        state.withLock { $0.fromLog = fromLog }
    }

    /// Writes the facts of `flow`'s held journeys whose users had no events in the flow before
    /// this ingest, each on its user's shard; how many.
    private func write(_ flow: String, store: ClickHouseStore, snapshot: ClickHouseStore.Snapshot, attempts: [UInt64]) throws -> Int {
        guard let fingerprint = held.fingerprint(of: flow) else { return 0 }
        let users = held.users(of: flow)
        guard !users.isEmpty else { return 0 }
        var table = ""
        for user in users { table += ClickHouseSQL.tsv(user) + "\n" }
        let external = ClickHouseClient.ExternalTable(name: "held", structure: "user_id String", rows: Data(table.utf8))
        var written = 0
        for server in store.servers {
            let doing = "writing the journeys of \(flow) folded during the ingest on \(server.server)"
            // The held users on this shard whose every event in the flow came with this ingest,
            // and their latest seq.
            var new: [(user: String, latest: Int64)] = []
            try store.rows(server, """
                SELECT user_id, max(seq), min(attempt IN \(ClickHouseSQL.list(attempts))) FROM \(store.layout.shardEvents)
                WHERE \(snapshot.clause) AND flow = \(ClickHouseSQL.quote(flow)) AND user_id IN held
                GROUP BY user_id
                """, doing: doing, external: external) { r in
                let user = try r.string()
                let latest = Int64(try r.uint64())
                if try r.uint8() == 1 { new.append((user, latest)) }
            }
            for part in factsRows(flow: flow, fingerprint: fingerprint, of: new) where part.count > 0 {
                try server.insert(into: "journey_facts", columns: ClickHouseFacts.factsColumns, rows: part.rows, doing: doing)
                written += part.count
            }
        }
        return written
    }

    /// The `journey_facts` rows of `journeys`, in parts of at most `Tuning.factsRowsPerInsert`
    /// rows made on `Tuning.foldWorkers` threads; a journey whose latest event is not the
    /// fold's is left out (the log's fold writes it).
    private func factsRows(flow: String, fingerprint: String, of journeys: [(user: String, latest: Int64)])
        -> [(rows: RowBinaryWriter, count: Int)] {
        let workers = Tuning.foldWorkers
        let size = max(1, min(Tuning.factsRowsPerInsert, (journeys.count + workers - 1) / workers))
        let parts = journeys.partRanges(size: size)
        let held = held
        return parts.parallelMap(workers: workers) { part in
            var rows = RowBinaryWriter()
            var count = 0
            for (user, latest) in journeys[part] {
                guard let journey = held.facts(flow: flow, user: user), journey.throughSeq == latest else { continue }
                ClickHouseFacts.appendRow(to: &rows, flow: flow, fingerprint: fingerprint, user: user, throughSeq: latest,
                                          lastMicros: journey.lastMicros, facts: journey.facts)
                count += 1
            }
            return (rows, count)
        }
    }
}
