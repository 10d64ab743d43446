import GRDB

/// Atom ids looked up through one statement prepared once (one per read of `db`), for readers
/// that look up many users in turn; ids found are kept (an atom's id never changes), texts not
/// found are asked again (the writer may add them).
package final class AtomIDs {
    private let statement: RawStatement
    private var found: [String: Int64] = [:]

    package init(_ db: Database) throws {
        statement = try RawStatement(db, "SELECT id FROM atoms WHERE text = ?")
    }

    /// The atom id of `text`, if the store has it.
    package func id(of text: String) throws -> Int64? {
        if let id = found[text] { return id }
        defer { statement.reset() }
        statement.text(1, text)
        guard try statement.step("looking up the atom \(text)") else { return nil }
        let id = statement.int64(0)
        found[text] = id
        return id
    }
}
