import XCTest
import TestSupport
import Foundation
import FunnelModel
import EventStore
import Flows
@testable import Projections
import Journeys
import Workers

/// A read as of the past tells how many journeys it folds again from the log: counted before
/// they are folded, then one by one, monotone, ending at the total, which is the number of
/// journeys with events on both sides of as-of (one that began after it is left out unread);
/// the figures are those of a read told nothing, and of every journey folded from the log.
final class RefoldProgressTests: XCTestCase {
    /// The (done, total) pairs a progress was told, from any thread.
    final class Told: Sendable {
        private let pairs = Locked([(done: Int, total: Int)]())
        func add(_ done: Int, _ total: Int) { pairs.withLock { $0.append((done, total)) } }
        var all: [(done: Int, total: Int)] { pairs.withLock { $0 } }
    }

    /// One kind of read, its answer sorted (the order is the source's): facts as their bytes
    /// (a step not reached has NaN seconds, never equal to itself), the rest by user.
    typealias Read = (any JourneySource, FlowDefinition, Timestamp) throws -> [AnyHashable]

    var reads: [(String, Read)] { [
        ("facts", { source, d, asOf in
            var out: [[UInt8]] = []
            XCTAssertTrue(try source.forEachFacts(flow: d.id, definition: d, asOf: asOf) { out.append($0.binary()) })
            return out.sorted { $0.lexicographicallyPrecedes($1) }
        }),
        ("facts in shares", { source, d, asOf in
            let out = try XCTUnwrap(try source.accumulateFacts(flow: d.id, definition: d, asOf: asOf, into: CollectedShares<JourneyFacts>()))
            return out.all.map { $0.binary() }.sorted { $0.lexicographicallyPrecedes($1) }
        }),
        ("journeys", { source, d, asOf in
            var out: [Journey] = []
            try source.forEachJourney(flow: d.id, definition: d, asOf: asOf) { out.append($0) }
            return out.sorted { $0.userID < $1.userID }
        }),
        ("glances in shares", { source, d, asOf in
            let request = JourneyGlance.Request(steps: d.orderedStepIDs, keys: d.collectedKeys.sorted())
            let out = try source.accumulateGlances(flow: d.id, definition: d, asOf: asOf, request: request,
                                                   into: CollectedShares<JourneyGlance>())
            return out.all.sorted { $0.userID < $1.userID }
        }),
    ] }

    func testAReadAsOfThePastCountsItsRefoldsUpToTheTotal() throws {
        let flows = ["glp1", "trendy"]
        let store = try ingest(flows.map { repositoryRoot.appendingPathComponent("sample-data/\($0)").path }, into: temporaryStorePath())
        let latest = try XCTUnwrap(try store.defaultAsOf(now: Timestamp(micros: .max)))
        for flow in flows {
            let definition = try XCTUnwrap(Flows.builtIn.first { $0.id == flow })
            let stored = try ProjectionStore.journeys(flow: flow, definition: definition, store: store)
            let asOf = try XCTUnwrap(AsOfChoice.busiest(stored))
            let later = AsOfChoice.spanning(stored, asOf)
            XCTAssertGreaterThan(later, 2, flow)
            XCTAssertGreaterThan(stored.filter { $0.firstEventAt > asOf }.count, 20, "\(flow): journeys that began after as-of")
            for (name, read) in reads {
                let told = Told()
                let source = StoreJourneys(store: store, refolds: RefoldProgress { told.add($0, $1) })
                let got = try read(source, definition, asOf)
                XCTAssertEqual(got, try read(store, definition, asOf), "\(flow) \(name)")
                XCTAssertEqual(got, try read(FoldedJourneys(log: store), definition, asOf), "\(flow) \(name): from the log")
                let pairs = told.all
                XCTAssertEqual(pairs.last?.done, later, "\(flow) \(name)")
                XCTAssertEqual(pairs.last?.total, later, "\(flow) \(name)")
                // Each journey folded is told (a share's count, told meanwhile, repeats the
                // count so far), and a total is known before the first.
                let dones = pairs.map(\.done)
                XCTAssertEqual(zip(dones, dones.dropFirst()).filter { $0 != $1 }.map(\.1), Array(1...later), "\(flow) \(name)")
                XCTAssertEqual(pairs.first?.done, 0, "\(flow) \(name)")
                for (a, b) in zip(pairs, pairs.dropFirst()) {
                    XCTAssertLessThanOrEqual(a.done, b.done, "\(flow) \(name)")
                    XCTAssertLessThanOrEqual(a.total, b.total, "\(flow) \(name)")
                }
                XCTAssertTrue(pairs.allSatisfy { $0.done <= $0.total }, "\(flow) \(name)")
                // As of the latest event nothing is folded again, and nothing is told.
                let none = Told()
                _ = try read(StoreJourneys(store: store, refolds: RefoldProgress { none.add($0, $1) }), definition, latest)
                XCTAssertTrue(none.all.isEmpty, "\(flow) \(name): \(none.all)")
            }
        }
    }
}
