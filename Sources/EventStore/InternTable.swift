import LogFiles
import GRDB
import StoreCore

/// Interns byte strings into a table `(id INTEGER PRIMARY KEY, column UNIQUE)` during one
/// input's transaction: a local table first, SQLite on a local miss.
struct InternTable {
    private var local = ByteInterner()
    private var ids: [Int64] = []
    private let find: RawStatement
    private let insert: RawStatement
    private let blob: Bool
    private let table: String

    init(_ db: Database, table: String, column: String, blob: Bool) throws {
        find = try RawStatement(db, "SELECT id FROM \(table) WHERE \(column) = ?")
        insert = try RawStatement(db, "INSERT INTO \(table) (\(column)) VALUES (?)")
        self.blob = blob
        self.table = table
    }

    private func bind(_ s: RawStatement, _ b: UnsafeBufferPointer<UInt8>) {
        if blob { s.blob(1, b) } else { s.text(1, b) }
    }

    /// The id of `bytes`; `first` when this input had not asked for it before.
    mutating func id(_ bytes: UnsafeBufferPointer<UInt8>) throws -> (id: Int64, first: Bool) {
        guard let r = try id(bytes, create: true) else {
            throw StoreError(doing: "interning into \(table)", reason: "no id")
        }
        return (r.id, r.first)
    }

    /// The id of `bytes`, creating it only when `create`; nil when absent and not created.
    mutating func id(_ bytes: UnsafeBufferPointer<UInt8>, create: Bool) throws -> (id: Int64, first: Bool, created: Bool)? {
        let (i, isNew) = local.intern(bytes)
        if !isNew {
            let v = ids[i]
            return v == 0 ? nil : (v, false, false)
        }
        bind(find, bytes)
        var id: Int64 = 0
        var created = false
        if try find.step("looking up \(table)") {
            id = find.int64(0)
            find.reset()
        } else {
            find.reset()
            if create {
                bind(insert, bytes)
                try insert.step("adding to \(table)")
                insert.reset()
                id = insert.lastInsertedRowID
                created = true
            }
        }
        // 0: known absent for this input (not created); asked again, it stays absent.
        ids.append(id)
        return id == 0 ? nil : (id, true, created)
    }
}
