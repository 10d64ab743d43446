import FunnelModel
import LogFiles
import GRDB

/// Collects the runs of one input on the writing thread and writes them before the input's
/// projections are folded (a refold from the log must see the input's own events).
struct RunCollector {
    private struct Run {
        var user: Int64
        var flow: Int64
        /// The run's first and last seq in `seqs` (a chain through `nextSeq`).
        var first: Int32
        var last: Int32
        var count: Int32
        var lastTs: Int64
    }
    /// Each run's (user, flow) bytes, numbered as `runs` is (one cheap hash a row, no
    /// `Hasher`).
    private var index = ByteInterner()
    private var runs: [Run] = []
    /// Every seq held, in arrival order, and the next one of the same run (-1: its last).
    private var seqs: [Int64] = []
    private var nextSeq: [Int32] = []
    /// The run each of the parser's user numbers went to last (-1: none yet), checked
    /// against the run's user and flow: most rows find their run here, not in `index`.
    private var runOfUser: [Int32] = []
    /// A run's seqs, gathered for writing.
    private var scratch: [Int64] = []
    /// Seqs held; past `limit` the runs are written early, so memory stays bounded.
    var held: Int { seqs.count }
    let limit: Int

    init(limit: Int = Tuning.heldRunSeqs) { self.limit = limit }

    /// Adds `seq` to the run of (`user`, `flow`); `userNumber` is the parser's number of the
    /// user in this input (-1: none).
    mutating func add(user: Int64, flow: Int64, seq: Int64, ts: Int64, userNumber: Int32 = -1) {
        let i = run(user: user, flow: flow, userNumber: userNumber)
        let at = Int32(seqs.count)
        seqs.append(seq)
        nextSeq.append(-1)
        if i < runs.count {
            nextSeq[Int(runs[i].last)] = at
            runs[i].last = at
            runs[i].count += 1
            runs[i].lastTs = max(runs[i].lastTs, ts)
        } else {
            runs.append(Run(user: user, flow: flow, first: at, last: at, count: 1, lastTs: ts))
        }
    }

    /// The index of the run of (`user`, `flow`) in `runs` (`runs.count`: a new one).
    private mutating func run(user: Int64, flow: Int64, userNumber: Int32) -> Int {
        let u = Int(userNumber)
        if u >= 0, u < runOfUser.count {
            let r = Int(runOfUser[u])
            if r >= 0, r < runs.count, runs[r].user == user, runs[r].flow == flow { return r }
        }
        var key = (user, flow)
        let i = withUnsafeBytes(of: &key) { index.intern($0.bindMemory(to: UInt8.self)).id }
        if u >= 0 {
            if u >= runOfUser.count { runOfUser.append(contentsOf: repeatElement(-1, count: u + 1 - runOfUser.count)) }
            runOfUser[u] = Int32(i)
        }
        return i
    }

    /// Forgets the parser's user numbers of the input before (the next numbers its users
    /// afresh); the buffers stay for its runs.
    mutating func startInput() {
        runOfUser.removeAll(keepingCapacity: true)
    }

    /// Writes the runs held and forgets them.
    mutating func flush(_ db: Database) throws {
        guard !runs.isEmpty else { return }
        let insert = try RawStatement(cached: """
            INSERT INTO user_runs (user, flow, first_seq, events, last_ts_us, seqs) VALUES (?, ?, ?, ?, ?, ?)
            """, in: db)
        for run in runs {
            scratch.removeAll(keepingCapacity: true)
            var at = run.first
            while at >= 0 {
                scratch.append(seqs[Int(at)])
                at = nextSeq[Int(at)]
            }
            insert.int(1, run.user)
            insert.int(2, run.flow)
            insert.int(3, seqs[Int(run.first)])
            insert.int(4, Int64(run.count))
            insert.int(5, run.lastTs)
            UserRuns.encode(scratch).withUnsafeBufferPointer { insert.blob(6, $0) }
            try insert.step("recording where user atom \(run.user)'s events are")
            insert.reset()
        }
        runs.removeAll(keepingCapacity: true)
        seqs.removeAll(keepingCapacity: true)
        nextSeq.removeAll(keepingCapacity: true)
        index = ByteInterner()
    }
}
