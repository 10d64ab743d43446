import GRDB
import GRDBSQLite
import StoreCore

extension StoreError.Kind {
    /// The kind of a SQLite result code (primary or extended): busy or locked, not a
    /// database, corrupt; any other code is `failed`.
    @usableFromInline
    package init(sqliteCode code: Int32) {
        switch code & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: self = .busy
        case SQLITE_NOTADB: self = .notAStore
        case SQLITE_CORRUPT: self = .corrupt
        default: self = .failed
        }
    }

    /// The kind of an error met in the SQLite store: a `StoreError`'s own, a database
    /// error's by its result code, else `failed`.
    package init(sqlite error: any Error) {
        if let e = error as? DatabaseError {
            self.init(sqliteCode: e.resultCode.rawValue)
        } else {
            self.init(of: error)
        }
    }
}

extension StoreError {
    /// A database error as a store failure: GRDB's message the reason, SQLite's code the kind.
    package init(doing: String, _ error: DatabaseError) {
        self.init(doing: doing, reason: error.message ?? error.description, kind: Kind(sqliteCode: error.resultCode.rawValue))
    }
}
