import GRDB

/// Reads users' stored lines one user and flow at a time, keeping what it looked up (atoms,
/// shapes, the inputs' sources) from user to user. One per read of `db`.
public final class UsersLines {
    private let db: Database
    private let reader: StoredLineReader

    public init(_ db: Database) throws {
        self.db = db
        reader = try StoredLineReader(db)
    }

    /// One user's lines in one flow, as stored (not decoded).
    public func lines(user: String, flow: String) throws -> StoredLines {
        guard let userAtom = try EventStore.atomID(user, in: db), let flowAtom = try EventStore.atomID(flow, in: db) else {
            return StoredLines()
        }
        return try EventStore.storedLines(seqs: UserRuns.seqs(user: userAtom, flow: flowAtom, in: db), reader: reader, in: db)
    }
}
