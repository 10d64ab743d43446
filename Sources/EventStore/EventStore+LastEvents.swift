import FunnelModel
import GRDB
import Workers

extension EventStore {
    /// For each of `users`, their last event on `step` in `flow` (fold order: event time, then
    /// arrival) not after `bound`; users with none are left out. One read for all of them: a
    /// user's events are told apart by the `step` and `ts_us` columns, and only each one's
    /// last line is decoded, all of them in one pass.
    public func lastEvents(onStep step: String, flow: String, users: [String], notAfter bound: Timestamp) throws -> [String: RecordedEvent] {
        try read(doing: "reading the last events on \(step)") { db in
            guard let flowAtom = try EventStore.atomID(flow, in: db), let stepAtom = try EventStore.atomID(step, in: db) else { return [:] }
            let atom = try RawStatement(cached: "SELECT id FROM atoms WHERE text = ?", in: db)
            let rows = LogRows(db)
            var lastSeqs: [Int64] = []
            var owners: [Int64: String] = [:]
            for user in users {
                atom.reset()
                atom.text(1, user)
                guard try atom.step("looking up user \(user)") else { continue }
                let userAtom = atom.int64(0)
                atom.reset()
                var last: (micros: Int64, seq: Int64)?
                try rows.rows(seqs: UserRuns.seqs(user: userAtom, flow: flowAtom, in: db), doing: "reading \(user)'s events") { seq, row in
                    guard let row, row.step == stepAtom else { return }
                    // Seqs ascend: a later one at the same time is later in fold order.
                    if row.ts <= bound.micros, last.map({ row.ts >= $0.micros }) ?? true { last = (row.ts, seq) }
                }
                if let last {
                    lastSeqs.append(last.seq)
                    owners[last.seq] = user
                }
            }
            var out: [String: RecordedEvent] = [:]
            for event in try EventStore.storedLines(seqs: lastSeqs, reader: try StoredLineReader(db), in: db).events(keepingLines: true) {
                if let user = owners[event.seq] { out[user] = event }
            }
            return out
        }
    }

    /// The events of `seqs`, in seq order. Many are read in shares, one a core, each in a
    /// read of its own: an event, once committed, reads the same in any later transaction.
    public func events(seqs: [Int64]) throws -> [RecordedEvent] {
        guard !seqs.isEmpty else { return [] }
        let sorted = seqs.sorted()
        let shares = min(WorkerCount.machine, max(1, sorted.count / Tuning.seqsPerReadShare))
        let size = (sorted.count + shares - 1) / shares
        let parts = sorted.partRanges(size: size).map { Array(sorted[$0]) }
        return try parts.parallelMap(workers: parts.count) { part in
            try self.read(doing: "reading \(part.count) events by seq") { db in
                try EventStore.storedLines(seqs: part, reader: try StoredLineReader(db), in: db).events(keepingLines: true)
            }
        }.flatMap { $0 }
    }
}
