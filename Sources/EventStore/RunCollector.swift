import FunnelModel
import LogFiles
import GRDB

/// Collects the runs of one input on the writing thread and writes them before the input's
/// projections are folded (a refold from the log must see the input's own events).
struct RunCollector {
    private struct Run {
        var user: Int64
        var flow: Int64
        var seqs: [Int64]
        var lastTs: Int64
    }
    /// Each run's (user, flow) bytes, numbered as `runs` is (one cheap hash a row, no
    /// `Hasher`).
    private var index = ByteInterner()
    private var runs: [Run] = []
    /// Seqs held; past `limit` the runs are written early, so memory stays bounded.
    private(set) var held = 0
    let limit: Int

    init(limit: Int = Tuning.heldRunSeqs) { self.limit = limit }

    mutating func add(user: Int64, flow: Int64, seq: Int64, ts: Int64) {
        var key = (user, flow)
        let i = withUnsafeBytes(of: &key) { index.intern($0.bindMemory(to: UInt8.self)).id }
        if i < runs.count {
            runs[i].seqs.append(seq)
            runs[i].lastTs = max(runs[i].lastTs, ts)
        } else {
            runs.append(Run(user: user, flow: flow, seqs: [seq], lastTs: ts))
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
            insert.int(1, run.user)
            insert.int(2, run.flow)
            insert.int(3, first)
            insert.int(4, Int64(run.seqs.count))
            insert.int(5, run.lastTs)
            UserRuns.encode(run.seqs).withUnsafeBufferPointer { insert.blob(6, $0) }
            try insert.step("recording where user atom \(run.user)'s events are")
            insert.reset()
        }
        runs.removeAll(keepingCapacity: true)
        index = ByteInterner()
        held = 0
    }
}
