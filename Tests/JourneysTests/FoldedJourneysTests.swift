import XCTest
import Foundation
import FunnelModel
import EventStore
import Flows
import TestSupport
@testable import Projections
@testable import Journeys

/// `FoldedJourneys` folds from the log what the projection stores: on every seed flow's sample
/// data, as of the store's as-of and as of a time that cuts journeys, its journeys, facts and
/// glances are the `EventStore`'s, whatever order the log hands the users out in.
final class FoldedJourneysTests: XCTestCase {
    static let flows = ["glp1", "baby-basics", "screentime-rewards", "shieldai", "trendy"]

    /// Every seed flow's sample data in one store, as `scripts/gen-reports` ingests it.
    static let store: Result<EventStore, any Error> = Result {
        try ingest(flows.map { repositoryRoot.appendingPathComponent("sample-data/\($0)").path }, into: temporaryStorePath())
    }

    /// The sources compared: the projection, and folds of the log in its order, reversed and shuffled.
    static let sources: Result<[(name: String, source: any JourneySource)], any Error> = Result {
        let store = try FoldedJourneysTests.store.get()
        return [("EventStore", store), ("FoldedJourneys", FoldedJourneys(log: store)),
                ("FoldedJourneys reversed", FoldedJourneys(log: try ReorderedLog(store, .reversed))),
                ("FoldedJourneys shuffled", FoldedJourneys(log: try ReorderedLog(store, .shuffled(seed: 20261003))))]
    }

    func journeys(_ source: any JourneySource, _ definition: FlowDefinition, asOf: Timestamp) throws -> [Journey] {
        var out: [Journey] = []
        try source.forEachJourney(flow: definition.id, definition: definition, asOf: asOf) { out.append($0) }
        return out
    }

    func testJourneysFactsAndGlancesAreTheProjectionsOnEverySeedFlow() throws {
        let store = try Self.store.get()
        let latest = try XCTUnwrap(try store.defaultAsOf(now: Timestamp(micros: Int64.max / 2)))
        XCTAssertEqual(latest.description, "2026-10-08T11:31:42.721Z")
        for flow in Self.flows {
            let definition = try FlowCatalog().flow(flow)
            let all = try journeys(store, definition, asOf: latest)
            // A time most journeys straddle: the median last event, so some are cut and some not begun.
            let lastTimes = all.map(\.lastEventAt).sorted()
            let cut = lastTimes[lastTimes.count / 2]
            let cutJourneys = try journeys(store, definition, asOf: cut)
            XCTAssertGreaterThan(all.count, 100, flow)
            XCTAssertLessThan(cutJourneys.count, all.count, "\(flow): as of \(cut) leaves out the users who had not begun")
            XCTAssertGreaterThan(cutJourneys.filter { $0.lastEventAt == cut }.count, 0, flow)
            let request = JourneyGlance.Request(steps: Array(definition.orderedStepIDs.prefix(4)),
                                                keys: Array(definition.collectedKeys.sorted().prefix(3)))
            for asOf in [latest, cut] {
                let expected = Dictionary(uniqueKeysWithValues: try journeys(store, definition, asOf: asOf).map { ($0.userID, $0) })
                var expectedFacts: [[UInt8]]?
                var expectedGlances: [String: JourneyGlance]?
                var orders: [String: [String]] = [:]
                for (name, source) in try Self.sources.get() {
                    let got = try journeys(source, definition, asOf: asOf)
                    orders[name] = got.map(\.userID)
                    XCTAssertEqual(got.count, expected.count, "\(flow) as of \(asOf): \(name)")
                    for j in got where expected[j.userID] != j {
                        XCTFail("\(flow) as of \(asOf): \(name) folds \(j.userID) otherwise than the projection")
                    }
                    var facts: [[UInt8]] = []
                    XCTAssertTrue(try source.forEachFacts(flow: flow, definition: definition, asOf: asOf) { facts.append($0.binary()) })
                    facts.sort { $0.lexicographicallyPrecedes($1) }
                    XCTAssertEqual(facts.count, expected.count, "\(flow): \(name)")
                    if let expectedFacts { XCTAssertTrue(facts == expectedFacts, "\(flow) as of \(asOf): \(name) facts") }
                    expectedFacts = facts
                    var glances: [String: JourneyGlance] = [:]
                    try source.forEachGlance(flow: flow, definition: definition, asOf: asOf, request: request) { glances[$0.userID] = $0 }
                    XCTAssertEqual(glances.count, expected.count, "\(flow): \(name)")
                    if let expectedGlances { XCTAssertTrue(glances == expectedGlances, "\(flow) as of \(asOf): \(name) glances") }
                    expectedGlances = glances
                }
                // The reordered logs did hand the users out in another order.
                XCTAssertEqual(orders["FoldedJourneys reversed"], orders["FoldedJourneys"]?.reversed(), flow)
                XCTAssertNotEqual(orders["FoldedJourneys shuffled"], orders["FoldedJourneys"], flow)
            }
        }
    }

    func testGLP1StartedAndCompletedUsersFoldedFromTheLog() throws {
        let store = try Self.store.get()
        let glp1 = try FlowCatalog().flow("glp1")
        let asOf = try XCTUnwrap(try store.defaultAsOf(now: Timestamp(micros: Int64.max / 2)))
        let folded = try journeys(FoldedJourneys(log: try ReorderedLog(store, .reversed)), glp1, asOf: asOf)
        // reports/glp1.md: 393 started, 256 completed.
        XCTAssertEqual(folded.filter(\.started).count, 393)
        XCTAssertEqual(folded.filter { $0.completedAt != nil && $0.started }.count, 256)
        // As of midnight of 2026-10-03 only the users who had begun by then, each up to then.
        let early = try XCTUnwrap(Timestamp.parse("2026-10-03T00:00:00Z"))
        let cut = try journeys(FoldedJourneys(log: store), glp1, asOf: early)
        XCTAssertFalse(cut.isEmpty)
        XCTAssertTrue(cut.allSatisfy { $0.firstEventAt <= early && $0.lastEventAt <= early })
        XCTAssertLessThan(cut.count, folded.count)
    }

    /// A facts request on a definition facts cannot stand for is refused, as the store refuses it.
    func testFactsOfADefinitionWithTooManyCohortsAreRefused() throws {
        let store = try Self.store.get()
        var glp1 = try FlowCatalog().flow("glp1")
        let cohort = try XCTUnwrap(glp1.cohorts.first)
        glp1.cohorts = Array(repeating: cohort, count: 65)
        let asOf = try XCTUnwrap(try store.latestEventTime(notAfter: nil))
        for (name, source) in try Self.sources.get() {
            var count = 0
            XCTAssertFalse(try source.forEachFacts(flow: "glp1", definition: glp1, asOf: asOf) { _ in count += 1 }, name)
            XCTAssertEqual(count, 0, name)
        }
    }
}
