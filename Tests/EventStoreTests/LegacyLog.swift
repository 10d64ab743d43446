import Foundation
import GRDB
@testable import EventStore

/// Puts a store's log back in rows of one event each (the `events` table), as stores had it
/// before blocks (migration v8), for the tests of that migration and of the ones before it.
enum LegacyLog {
    static func downgrade(_ db: Database) throws {
        var rows: [[DatabaseValue]] = []
        try LogRows(db).forEach(LogRows.Selection(), doing: "reading the log") { r in
            let numbers: [Int64?] = [r.seq, r.idHash, r.user, r.flow, r.ts, r.offset, r.inputID, r.line]
            rows.append(numbers.map(\.databaseValue) + [Data(r.body).databaseValue, r.event.databaseValue, r.step.databaseValue])
        }
        try db.execute(sql: "DROP VIEW event_log")
        try db.execute(sql: "DROP VIEW events")
        try db.execute(sql: "DROP TABLE event_blocks")
        try db.execute(sql: "DROP TABLE event_slots")
        try db.execute(sql: EventStore.eventRowsTable)
        try db.execute(sql: "ALTER TABLE events ADD COLUMN event INTEGER")
        try db.execute(sql: "ALTER TABLE events ADD COLUMN step INTEGER")
        let insert = try db.makeStatement(sql: "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        for row in rows { try insert.execute(arguments: StatementArguments(row)) }
        try db.execute(sql: EventStore.eventLogView)
        try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v8:%'")
    }
}
