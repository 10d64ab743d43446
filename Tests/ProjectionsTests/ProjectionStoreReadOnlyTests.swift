import XCTest
import Foundation
import FunnelModel
import EventStore
import Flows
import GRDB
@testable import Projections
import TestSupport
@testable import Journeys

/// A store opened read-only is never written: journeys folded with another definition are
/// folded again from the log as they are read (the same journeys a writer would store), the
/// facts that stand for the old definition are not used, and the rows stay as they were.
final class ProjectionStoreReadOnlyTests: XCTestCase {
    func testStaleJourneysAreFoldedInMemoryAndNothingIsWritten() throws {
        let path = temporaryStorePath()
        let glp1 = try FlowCatalog().flow("glp1")
        do { _ = try ingest([repositoryRoot.appendingPathComponent("sample-data/glp1").path], into: path) }
        // The definition changes: a step's `when` no longer skips it.
        var changed = glp1
        let index = try XCTUnwrap(changed.steps.firstIndex { $0.id == "goalWeight" })
        changed.steps[index].when = nil
        XCTAssertNotEqual(JourneyFold.fingerprint(changed), JourneyFold.fingerprint(glp1))

        let reader = try EventStore(path: path, migrations: ProjectionStore.migrations, access: .immutable)
        func fingerprints() throws -> [String: Int] {
            try reader.writer.read { db in
                var out: [String: Int] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT definition, count(*) FROM journeys WHERE flow = 'glp1' GROUP BY definition") {
                    out[row[0]] = row[1]
                }
                return out
            }
        }
        let before = try fingerprints()
        XCTAssertEqual(before.keys.sorted(), [JourneyFold.fingerprint(glp1)])
        let read = try ProjectionStore.journeys(flow: "glp1", definition: changed, store: reader)
        var facts = 0
        XCTAssertFalse(try ProjectionStore.forEachFacts(flow: "glp1", definition: changed, store: reader,
                                                        asOf: Timestamp(micros: Int64.max / 2)) { _ in facts += 1 },
                       "stale facts are not read")
        XCTAssertEqual(facts, 0)
        XCTAssertEqual(try fingerprints(), before, "nothing written")
        // A writer refolds and stores the same journeys.
        let writer = try EventStore(path: path, migrations: ProjectionStore.migrations)
        let stored = try ProjectionStore.journeys(flow: "glp1", definition: changed, store: writer)
        XCTAssertEqual(read.count, before.values.reduce(0, +))
        XCTAssertEqual(read.map(\.withoutSeqs), stored.map(\.withoutSeqs))
        XCTAssertNotEqual(read.map(\.withoutSeqs), try ProjectionStore.journeys(flow: "glp1", definition: glp1, store: writer).map(\.withoutSeqs),
                          "the change shows in the journeys")
    }
}
