/// One of the files of a SQLite store: its database, WAL, shared memory, rollback journal or
/// writer lock, as a message names it.
package struct StoreFile: Sendable, CustomStringConvertible {
    package var path: String
    /// nil: the database itself; else "wal", "shm", "journal" or "lock".
    package var kind: String?

    /// The files of the store at `path` (whichever exist).
    package static func all(ofStore path: String) -> [StoreFile] {
        [StoreFile(path: path, kind: nil)] + ["wal", "shm", "journal"].map { StoreFile(path: path + "-" + $0, kind: $0) }
            + [StoreFile(path: path + ".lock", kind: "lock")]
    }

    /// "the store", or "the store's wal file (PATH)".
    package var description: String {
        kind.map { "the store's \($0) file (\(path))" } ?? "the store"
    }
}
