import XCTest
import GRDB
import FunnelModel
import LogFiles
import StoreCore
import LogSources
@testable import EventStore

/// One `UsersLines` reads user after user (what a fold does for the users it refolds) and
/// gives each the lines a reader of its own gives: native lines and a vendor's, mapped again.
final class UsersLinesTests: XCTestCase {
    func testOneReaderGivesEachUserTheLinesOfAReaderOfItsOwn() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, inputs, source) in [("native", ["glp1"], nil as String?), ("posthog", ["sources/posthog"], "posthog")] {
            let store = try EventStore(path: dir.appendingPathComponent("\(name).sqlite").path)
            let mapping = try source.map { SourceMapping(try XCTUnwrap(SourcePresets.named($0))) }
            let options = IngestOptions(source: mapping, now: fixedClock(1_000))
            var skipped = InputSource.Skipped()
            let files = try InputSource.discover(inputs.map { sampleData.appendingPathComponent($0).path },
                                                 extensions: mapping?.definition.inputExtensions ?? InputSource.logExtensions,
                                                 skipped: &skipped)
            XCTAssertGreaterThan(try Ingestor(store: store, options: options).ingest(files).accepted, 1_000, name)
            try store.writer.read { db in
                let keys = try Row.fetchAll(db, sql: """
                    SELECT u.text, f.text FROM user_runs r JOIN atoms u ON u.id = r.user JOIN atoms f ON f.id = r.flow
                    GROUP BY r.user, r.flow ORDER BY u.text LIMIT 60
                    """).map { ($0[0] as String, $0[1] as String) }
                XCTAssertEqual(keys.count, 60, name)
                let shared = try UsersLines(db)
                for (user, flow) in keys {
                    let got = try shared.lines(user: user, flow: flow).events(keepingLines: true)
                    let alone = try UsersLines(db).lines(user: user, flow: flow).events(keepingLines: true)
                    XCTAssertFalse(got.isEmpty, "\(name) \(user)")
                    XCTAssertEqual(got.map(\.seq), alone.map(\.seq), "\(name) \(user)")
                    XCTAssertEqual(got.map(\.line), alone.map(\.line), "\(name) \(user)")
                    XCTAssertEqual(got.map(\.event), alone.map(\.event), "\(name) \(user)")
                    XCTAssertEqual(Set(got.map(\.event.userID)), [user], "\(name) \(user)")
                }
            }
        }
    }
}
