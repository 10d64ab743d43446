import FunnelModel
import LogFiles
import GRDB

/// Collects the runs of one input on the writing thread and writes them before the input's
/// projections are folded (a refold from the log must see the input's own events).
struct RunCollector {
    private struct Key: Hashable {
        var user: Int64
        var flow: Int64
    }
    private struct Run {
        var key: Key
        var seqs: [Int64]
        var lastTs: Int64
    }
    private var index: [Key: Int] = [:]
    private var runs: [Run] = []
    /// Seqs held; past `limit` the runs are written early, so memory stays bounded.
    private(set) var held = 0
    let limit: Int

    init(limit: Int = Tuning.heldRunSeqs) { self.limit = limit }

    mutating func add(user: Int64, flow: Int64, seq: Int64, ts: Int64) {
        let key = Key(user: user, flow: flow)
        if let i = index[key] {
            runs[i].seqs.append(seq)
            runs[i].lastTs = max(runs[i].lastTs, ts)
        } else {
            index[key] = runs.count
            runs.append(Run(key: key, seqs: [seq], lastTs: ts))
        }
        held += 1
    }

    /// Writes the runs held and forgets them.
    mutating func flush(_ db: Database) throws {
        guard !runs.isEmpty else { return }
        let insert = try RawStatement(cached: """
            INSERT INTO user_runs (user, flow, first_seq, events, last_ts_us, seqs) VALUES (?, ?, ?, ?, ?, ?)
            """, in: db)
        for run in runs {
            guard let first = run.seqs.first else { continue }
            insert.int(1, run.key.user)
            insert.int(2, run.key.flow)
            insert.int(3, first)
            insert.int(4, Int64(run.seqs.count))
            insert.int(5, run.lastTs)
            UserRuns.encode(run.seqs).withUnsafeBufferPointer { insert.blob(6, $0) }
            try insert.step("recording where user atom \(run.key.user)'s events are")
            insert.reset()
        }
        runs.removeAll(keepingCapacity: true)
        index.removeAll(keepingCapacity: true)
        held = 0
    }
}
