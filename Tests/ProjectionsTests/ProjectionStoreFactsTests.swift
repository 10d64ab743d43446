import XCTest
import TestSupport
import Foundation
import FunnelModel
import Flows
@testable import Projections
@testable import Journeys

/// Report facts read in two shares of the users, on two threads, are the facts of one pass,
/// in the same order, for every sample flow and with an as-of that cuts journeys short.
final class ProjectionStoreFactsTests: XCTestCase {
    func testFactsReadInSharesAreTheSinglePassFacts() throws {
        let flows = ["glp1", "baby-basics", "screentime-rewards", "shieldai", "trendy", "edge"]
        let store = try ingest(flows.map { repositoryRoot.appendingPathComponent("sample-data/\($0)").path }, into: temporaryStorePath())
        var compared = 0, refolded = 0
        for definition in Flows.builtIn where JourneyFacts.supports(definition) {
            guard let latest = try store.defaultAsOf(now: Timestamp(micros: .max)) else {
                return XCTFail("no events")
            }
            // The latest event's time, and a day before it (journeys past it are folded again).
            for asOf in [latest, Timestamp(micros: latest.micros - 86_400_000_000)] {
                var single: [JourneyFacts] = []
                XCTAssertTrue(try ProjectionStore.forEachFacts(flow: definition.id, definition: definition, store: store,
                                                               asOf: asOf) { single.append($0) })
                let shares = PartStates(repeating: (starts: 0, facts: [JourneyFacts]()), count: 2)
                XCTAssertTrue(try ProjectionStore.forEachFacts(flow: definition.id, definition: definition, store: store,
                                                               asOf: asOf, parts: 2,
                                                               start: { part in shares.update(part) { $0.starts += 1; $0.facts = [] } },
                                                               { part, f in shares.update(part) { $0.facts.append(f) } }))
                let all = shares.all
                XCTAssertEqual(all.map(\.starts), [1, 1], definition.id)
                // Compared as stored bytes: a step not reached has NaN seconds, never equal to itself.
                XCTAssertEqual(all.flatMap(\.facts).map { $0.binary() }, single.map { $0.binary() }, "\(definition.id) as of \(asOf)")
                XCTAssertFalse(all[0].facts.isEmpty, definition.id)
                XCTAssertFalse(all[1].facts.isEmpty, definition.id)
                if asOf != latest { refolded += single.count }
                compared += single.count
            }
        }
        XCTAssertGreaterThan(compared, 1_500)
        XCTAssertGreaterThan(refolded, 500)
    }

    /// The split id sorts above the first id and at most the last, so both shares have users.
    func testTheSplitFallsBetweenTheFirstAndLastIDs() {
        func split(_ low: String, _ high: String) -> String {
            String(decoding: ProjectionStore.midpoint(Array(low.utf8), Array(high.utf8)), as: UTF8.self)
        }
        XCTAssertEqual(split("u-000001", "u-040000"), "u-02")
        XCTAssertEqual(split("u-09", "u-10"), "u-1")
        XCTAssertEqual(split("a", "ab"), "a1")
        XCTAssertEqual(split("0f3c", "f9a2"), "K")
        for (low, high) in [("u-000001", "u-040000"), ("u-09", "u-10"), ("a", "ab"), ("0f3c", "f9a2"), ("x", "y"), ("é", "ü")] {
            let mid = ProjectionStore.midpoint(Array(low.utf8), Array(high.utf8))
            XCTAssertTrue(Array(low.utf8).lexicographicallyPrecedes(mid), "\(low) < split")
            XCTAssertFalse(Array(high.utf8).lexicographicallyPrecedes(mid), "split <= \(high)")
        }
    }
}
