import GRDB

/// Reads users' stored lines one user and flow at a time, keeping what it looked up (atoms,
/// shapes, the inputs' sources) from user to user. One per read of `db`.
public final class UsersLines {
    private let db: Database
    private let reader: StoredLineReader
    private let atoms: AtomIDs

    public convenience init(_ db: Database) throws {
        try self.init(db, atoms: AtomIDs(db))
    }

    /// `atoms`: the lookup to share with the other readers of `db`.
    package init(_ db: Database, atoms: AtomIDs) throws {
        self.db = db
        reader = try StoredLineReader(db)
        self.atoms = atoms
    }

    /// One user's lines in one flow, as stored (not decoded).
    public func lines(user: String, flow: String) throws -> StoredLines {
        guard let userAtom = try atoms.id(of: user), let flowAtom = try atoms.id(of: flow) else {
            return StoredLines()
        }
        return try EventStore.storedLines(seqs: UserRuns.seqs(user: userAtom, flow: flowAtom, in: db), reader: reader, in: db)
    }
}
