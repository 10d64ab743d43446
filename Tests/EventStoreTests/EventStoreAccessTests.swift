import XCTest
import GRDB
import LogFiles
@testable import EventStore
import TestSupport
import StoreCore

/// A store opened read-only or immutable reads what was written, creates nothing beside the
/// file, writes nothing, and refuses a store that still needs a migration.
final class EventStoreAccessTests: XCTestCase {
    /// A store of the edge duplicates file, closed (its -wal and -shm gone), and its folder.
    func closedStore() throws -> (path: String, folder: URL, events: Int) {
        let folder = tempDir()
        let path = folder.appendingPathComponent("s.sqlite").path
        var events = 0
        do {
            let store = try EventStore(path: path)
            let s = try Ingestor(store: store, options: IngestOptions(now: fixedClock(1_000)))
                .ingest(try InputSource.discover([sampleData.appendingPathComponent("edge/duplicates.ndjson").path]))
            events = s.accepted
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["s.sqlite"],
                       "the last connection to close removes -wal and -shm")
        return (path, folder, events)
    }

    func testImmutableReadsWithoutCreatingAFile() throws {
        let (path, folder, events) = try closedStore()
        XCTAssertEqual(events, 5)
        let store = try EventStore(path: path, access: .immutable)
        XCTAssertEqual(store.access, .immutable)
        XCTAssertEqual(try store.eventCount(), 5)
        XCTAssertEqual(try store.flows(), ["glp1"])
        XCTAssertEqual(try store.inputs().map(\.accepted), [5])
        XCTAssertThrowsError(try store.writer.write { db in try db.execute(sql: "DELETE FROM event_blocks") })
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["s.sqlite"])
    }

    func testReadOnlyReadsThroughTheWritersSideFiles() throws {
        let (path, folder, _) = try closedStore()
        // A writer holding the store open keeps its -wal and -shm; a read-only reader uses them
        // and sees what the writer committed since.
        let writer = try EventStore(path: path)
        try writer.writer.write { db in try db.execute(sql: "UPDATE inputs SET lines = 99") }
        let reader = try EventStore(path: path, access: .readOnly)
        XCTAssertEqual(try reader.inputs().map(\.lines), [99])
        XCTAssertThrowsError(try reader.writer.write { db in try db.execute(sql: "UPDATE inputs SET lines = 1") })
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(),
                       ["s.sqlite", "s.sqlite-shm", "s.sqlite-wal"])
        withExtendedLifetime(writer) {}
    }

    func testAStoreThatNeedsAMigrationIsNotOpenedReadOnly() throws {
        let (path, _, _) = try closedStore()
        let newer = StoreMigration(name: "test-newer-table") { db in try db.execute(sql: "CREATE TABLE newer (x)") }
        XCTAssertThrowsError(try EventStore(path: path, migrations: [newer], access: .immutable)) { error in
            XCTAssertTrue("\(error)".contains("needs an upgrade, which only a user who can write it can make"), "\(error)")
            XCTAssertEqual((error as? StoreError)?.kind, .notAStore)
        }
        // Read-write, the migration runs; then read-only opens.
        _ = try EventStore(path: path, migrations: [newer])
        XCTAssertEqual(try EventStore(path: path, migrations: [newer], access: .immutable).eventCount(), 5)
    }

    /// A file that is not a SQLite database: a failure of its own kind, with SQLite's words.
    func testAFileThatIsNotADatabaseIsNotAStore() throws {
        let path = tempDir().appendingPathComponent("notes.sqlite").path
        try Data(String(repeating: "not a store\n", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try EventStore(path: path)) { error in
            XCTAssertEqual("\(error)", "store: while opening the store \(path): file is not a database")
            XCTAssertEqual((error as? StoreError)?.kind, .notAStore)
        }
    }

    func testAccessAsThisProcessMayWrite() throws {
        let (path, _, _) = try closedStore()
        XCTAssertEqual(EventStore.readAccess(path: path), .readWrite)
    }

    func testImmutableURIEscapesWhatAURIReads() {
        XCTAssertEqual(EventStore.immutableURI("/a b/s?x#1%.sqlite"), "file:/a b/s%3fx%231%25.sqlite?immutable=1")
        XCTAssertTrue(EventStore.immutableURI("rel.sqlite").hasPrefix("file:/"))
        XCTAssertTrue(EventStore.immutableURI("rel.sqlite").hasSuffix("/rel.sqlite?immutable=1"))
    }
}
