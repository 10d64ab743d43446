import GRDB
import GRDBSQLite
import Foundation
import StoreCore

/// A prepared statement driven through the SQLite C API: the one place that binds, steps,
/// resets and reads columns by hand. Binds bytes in place (no String per value) and reads
/// columns without copying them. Text bound with `text(_:_:)` from a buffer, and bytes bound
/// with `staticBlob`, must stay valid until `step` returns.
package struct RawStatement {
    package let statement: Statement
    package let db: Database
    /// The SQLite statement, read once from GRDB's (which keeps it alive as long as this).
    package let handle: OpaquePointer

    /// A new statement for `sql`.
    package init(_ db: Database, _ sql: String) throws {
        self.db = db
        statement = try db.makeStatement(sql: sql)
        handle = statement.sqliteStatement
    }

    /// The connection's cached statement for `sql`.
    package init(cached sql: String, in db: Database) throws {
        self.db = db
        statement = try db.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
    }

    // MARK: binding (parameters count from 1)

    @inlinable @inline(__always) package func text(_ i: Int32, _ b: UnsafeBufferPointer<UInt8>) {
        // A zero-length string needs a non-null pointer, or SQLite binds NULL.
        b.baseAddress.map { _ = sqlite3_bind_text(handle, i, UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self), Int32(b.count), nil) }
            ?? { _ = sqlite3_bind_text(handle, i, "", 0, nil) }()
    }
    @inlinable @inline(__always) package func text(_ i: Int32, _ s: String) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        _ = sqlite3_bind_text(handle, i, s, -1, transient)
    }
    @inlinable @inline(__always) package func blob(_ i: Int32, _ b: UnsafeBufferPointer<UInt8>) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        _ = sqlite3_bind_blob(handle, i, b.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(b.count), transient)
        if b.baseAddress == nil { _ = sqlite3_bind_zeroblob(handle, i, 0) }
    }
    /// Binds bytes without copying them: they must stay valid until `step()` returns.
    @inlinable @inline(__always) package func staticBlob(_ i: Int32, _ b: UnsafeBufferPointer<UInt8>) {
        if let base = b.baseAddress {
            _ = sqlite3_bind_blob(handle, i, base, Int32(b.count), nil)
        } else {
            _ = sqlite3_bind_zeroblob(handle, i, 0)
        }
    }
    @inlinable @inline(__always) package func int(_ i: Int32, _ v: Int64) { _ = sqlite3_bind_int64(handle, i, v) }
    @inlinable @inline(__always) package func null(_ i: Int32) { _ = sqlite3_bind_null(handle, i) }
    /// An optional value: NULL for nil.
    @inlinable @inline(__always) package func int(_ i: Int32, _ v: Int64?) { if let v { int(i, v) } else { null(i) } }
    @inlinable @inline(__always) package func text(_ i: Int32, _ s: String?) { if let s { text(i, s) } else { null(i) } }

    /// Binds `texts` to the parameters from `first` on (nil: NULL) and runs `body`, which
    /// steps: their bytes are copied once into temporary memory that stays valid while it
    /// runs, so SQLite neither measures nor copies each one.
    package func withTexts<R>(_ texts: [String?], from first: Int32, _ body: () throws -> R) rethrows -> R {
        var total = 0
        for t in texts { total += t?.utf8.count ?? 0 }
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(total, 1)) { buffer in
            guard let base = buffer.baseAddress else { return try body() }
            var at = 0
            for (k, t) in texts.enumerated() {
                let i = first + Int32(k)
                guard var t else {
                    null(i)
                    continue
                }
                t.withUTF8 { u in
                    if let p = u.baseAddress { (base + at).initialize(from: p, count: u.count) }
                    text(i, UnsafeBufferPointer(start: base + at, count: u.count))
                    at += u.count
                }
            }
            return try body()
        }
    }

    // MARK: stepping

    /// Steps once; returns true for a row. On an error, resets and throws a `StoreError`
    /// saying what was being done.
    @inlinable @discardableResult
    package func step(_ doing: @autoclosure () -> String) throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
        sqlite3_reset(handle)
        throw StoreError(doing: doing(), reason: message, kind: StoreError.Kind(sqliteCode: rc))
    }

    /// Steps through every row, calling `row` on each, and resets (also when `row` throws).
    @inlinable @inline(__always)
    package func forEachRow(_ doing: @autoclosure () -> String, _ row: () throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        while try step(doing()) { try row() }
    }

    @inlinable @inline(__always) package func reset() {
        sqlite3_reset(handle)
    }

    // MARK: reading the current row's columns (counted from 0)

    @inlinable @inline(__always) package func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(handle, i) }

    /// The column's bytes, valid until the next step or reset (empty for NULL or no bytes).
    @inlinable @inline(__always) package func bytes(_ i: Int32) -> UnsafeRawBufferPointer {
        // `sqlite3_column_blob` first, then `sqlite3_column_bytes`, as SQLite asks.
        let p = sqlite3_column_blob(handle, i)
        return UnsafeRawBufferPointer(start: p, count: Int(sqlite3_column_bytes(handle, i)))
    }

    /// The column as text, nil for NULL.
    @inlinable @inline(__always) package func string(_ i: Int32) -> String? {
        sqlite3_column_text(handle, i).map { String(cString: $0) }
    }

    /// Whether the column's text equals `s` (without making a String); false for NULL.
    @inlinable @inline(__always) package func textEquals(_ i: Int32, _ s: String) -> Bool {
        guard let t = sqlite3_column_text(handle, i) else { return false }
        return strcmp(t, s) == 0
    }

    @inlinable @inline(__always) package func isNull(_ i: Int32) -> Bool { sqlite3_column_type(handle, i) == SQLITE_NULL }

    /// The rowid of the connection's last INSERT.
    package var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(db.sqliteConnection) }
}
