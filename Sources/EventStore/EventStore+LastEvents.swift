import FunnelModel
import GRDB

extension EventStore {
    /// For each of `users`, their last event on `step` in `flow` (fold order: event time, then
    /// arrival) not after `bound`; users with none are left out. One read for all of them; a
    /// user's events are told apart by the `step` and `ts_us` columns, and only each one's
    /// last line is decoded.
    public func lastEvents(onStep step: String, flow: String, users: [String], notAfter bound: Timestamp) throws -> [String: RecordedEvent] {
        try read(doing: "reading the last events on \(step)") { db in
            guard let flowAtom = try EventStore.atomID(flow, in: db), let stepAtom = try EventStore.atomID(step, in: db) else { return [:] }
            let statement = try RawStatement(cached: "SELECT ts_us, step FROM events WHERE seq = ?", in: db)
            let reader = try StoredLineReader(db)
            var out: [String: RecordedEvent] = [:]
            for user in users {
                guard let userAtom = try EventStore.atomID(user, in: db) else { continue }
                var last: (micros: Int64, seq: Int64)?
                for seq in try UserRuns.seqs(user: userAtom, flow: flowAtom, in: db) {
                    statement.reset()
                    statement.int(1, seq)
                    guard try statement.step("reading event seq \(seq)") else { continue }
                    guard !statement.isNull(1), statement.int64(1) == stepAtom else { continue }
                    let micros = statement.int64(0)
                    // Seqs ascend: a later one at the same time is later in fold order.
                    if micros <= bound.micros, last.map({ micros >= $0.micros }) ?? true { last = (micros, seq) }
                }
                statement.reset()
                guard let last else { continue }
                if let event = try EventStore.storedLines(seqs: [last.seq], reader: reader, in: db).events(keepingLines: true).first {
                    out[user] = event
                }
            }
            return out
        }
    }
}
