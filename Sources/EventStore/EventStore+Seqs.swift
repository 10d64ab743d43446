import GRDB

/// What code outside the store needs to know about the log by seq, without its table layout:
/// how far the log goes, and which users and flows have events past a point.
extension EventStore {
    /// The log's last seq (0 when empty).
    public static func lastSeq(in db: Database) throws -> Int64 {
        try LogRows.lastSeq(in: db)
    }

    /// Whether the log has any event with a seq in `seqs`.
    public static func hasEvents(in seqs: Range<Int64>, in db: Database) throws -> Bool {
        try LogRows.hasRows(in: seqs, in: db)
    }

    /// Whether the log has any event after `seq`.
    public static func hasEvents(after seq: Int64, in db: Database) throws -> Bool {
        try LogRows.hasRows(after: seq, in: db)
    }

    /// Every user and flow with events in `seqs`, each once. `seqs` must begin and end at
    /// input boundaries (a run of a user's events never spans inputs).
    public static func usersAndFlows(withEventsIn seqs: Range<Int64>, in db: Database) throws -> [(user: String, flow: String)] {
        try Row.fetchAll(db, sql: """
            SELECT DISTINCT u.text, f.text FROM user_runs r JOIN atoms u ON u.id = r.user JOIN atoms f ON f.id = r.flow
            WHERE r.first_seq >= ? AND r.first_seq < ?
            """, arguments: [seqs.lowerBound, seqs.upperBound]).map { (user: $0[0], flow: $0[1]) }
    }

    /// The users of `flow` with events after `seq`, each once. `seq` must be the last seq of
    /// an input (a run of a user's events never spans inputs).
    public static func users(of flow: String, withEventsAfter seq: Int64, in db: Database) throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT DISTINCT u.text FROM user_runs r JOIN atoms u ON u.id = r.user
            WHERE r.flow = (SELECT id FROM atoms WHERE text = ?) AND r.first_seq > ?
            """, arguments: [flow, seq])
    }
}
