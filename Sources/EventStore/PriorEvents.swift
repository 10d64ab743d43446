import GRDB

/// How many events of a user in a flow the store holds before a seq, and the latest of
/// their times: read for many users through statements prepared once (one per read of `db`),
/// as an ingest's fold asks it of every returning user.
package final class PriorEvents {
    private let atoms: AtomIDs
    private let runs: RawStatement

    /// `atoms`: the lookup to share with the other readers of `db`.
    package init(_ db: Database, atoms: AtomIDs) throws {
        self.atoms = atoms
        runs = try RawStatement(db, """
            SELECT coalesce(sum(events), 0), max(last_ts_us) FROM user_runs WHERE user = ? AND flow = ? AND first_seq < ?
            """)
    }

    /// The events of `user` in `flow` that arrived before `seq`, which must be the first seq
    /// of an input (runs never span inputs): their count and latest event time.
    package func of(user: String, flow: String, before seq: Int64) throws -> (count: Int, lastMicros: Int64?) {
        guard let userAtom = try atoms.id(of: user), let flowAtom = try atoms.id(of: flow) else { return (0, nil) }
        defer { runs.reset() }
        runs.int(1, userAtom)
        runs.int(2, flowAtom)
        runs.int(3, seq)
        guard try runs.step("counting the events of \(user) in \(flow) before seq \(seq)") else { return (0, nil) }
        return (Int(runs.int64(0)), runs.isNull(1) ? nil : runs.int64(1))
    }
}
