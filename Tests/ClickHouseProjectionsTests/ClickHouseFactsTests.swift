import XCTest
import Foundation
import FunnelModel
import EventStore
import LogFiles
import Flows
import Projections
import TestSupport
@testable import ClickHouseProjections
import ClickHouseStore
import StoreCore
import Journeys

/// The facts kept in ClickHouse are the SQLite projection's, user for user: folded on the
/// first read, read back after that, folded again for users with newer events, and cut at
/// an as-of like SQLite's.
final class ClickHouseFactsTests: XCTestCase {
    static let sampleData = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("sample-data")

    func sqliteStore(_ flows: [String]) throws -> EventStore {
        let store = try EventStore(path: Scratch.directory("facts").appendingPathComponent("s.sqlite").path,
                                   migrations: ProjectionStore.migrations)
        let ingestor = Ingestor(store: store, options: IngestOptions(flows: Flows.builtIn),
                                observer: ProjectionUpdater(definitions: Flows.builtIn))
        _ = try ingestor.ingest(try InputSource.discover(flows.map { Self.sampleData.appendingPathComponent($0).path }))
        return store
    }

    /// Every facts value a source gives, sorted (the order users come in is the source's).
    func facts(_ read: ((JourneyFacts) throws -> Void) throws -> Bool) throws -> [JourneyFacts] {
        var out: [JourneyFacts] = []
        XCTAssertTrue(try read { out.append($0) })
        return out.sorted { $0.binary().lexicographicallyPrecedes($1.binary()) }
    }

    /// A report as of the past tells how many journeys it folds again, monotone, ending at
    /// the users with events after as-of, on one server and on two shards; the facts are those
    /// of a read told nothing.
    func testARefoldAsOfThePastTellsItsProgress() throws {
        if let reason = ClickHouseServers.unavailable {
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(reason) }
            throw XCTSkip(reason)
        }
        let servers = try ClickHouseServers.shared()
        let sqlite = try sqliteStore(["glp1"])
        let definition = try XCTUnwrap(Flows.builtIn.first { $0.id == "glp1" })
        let latest = try XCTUnwrap(try sqlite.latestEventTime(notAfter: nil))
        let stored = try ProjectionStore.journeys(flow: "glp1", definition: definition, store: sqlite)
        let asOf = try XCTUnwrap(AsOfChoice.busiest(stored))
        let later = AsOfChoice.spanning(stored, asOf)
        XCTAssertGreaterThan(later, 5)
        XCTAssertGreaterThan(stored.filter { $0.firstEventAt > asOf }.count, 50, "journeys that began after as-of, left out unread")
        for address in [servers.single(ClickHouseServers.database("refolds")), servers.cluster(ClickHouseServers.database("refolds"))] {
            let store = try ClickHouseStore(location: try ClickHouseLocation(address), migrations: ClickHouseFacts.migrations)
            try ClickHouseCopy.copy(sqlite, into: store)
            var pairs: [(done: Int, total: Int)] = []
            let source = ClickHouseJourneys(store: store, refolds: RefoldProgress { pairs.append(($0, $1)) })
            let got = try facts { try source.forEachFacts(flow: "glp1", definition: definition, asOf: asOf, $0) }
            XCTAssertEqual(got.map { $0.binary() },
                           try facts { try ClickHouseJourneys(store: store).forEachFacts(flow: "glp1", definition: definition, asOf: asOf, $0) }
                            .map { $0.binary() }, address)
            XCTAssertEqual(pairs.last?.done, later, address)
            XCTAssertEqual(pairs.last?.total, later, address)
            // Each journey folded is told (a bucket's count, told meanwhile, repeats the count so far).
            let dones = pairs.map(\.done)
            XCTAssertEqual(zip(dones, dones.dropFirst()).filter { $0 != $1 }.map(\.1), Array(1...later), address)
            XCTAssertEqual(pairs.first?.done, 0, address)
            for (a, b) in zip(pairs, pairs.dropFirst()) {
                XCTAssertLessThanOrEqual(a.total, b.total, address)
            }
            XCTAssertTrue(pairs.allSatisfy { $0.done <= $0.total }, address)
            // As of the latest event nothing is folded again.
            pairs = []
            _ = try facts { try source.forEachFacts(flow: "glp1", definition: definition, asOf: latest, $0) }
            XCTAssertTrue(pairs.isEmpty, "\(address): \(pairs)")
        }
    }

    func testFactsMatchSQLiteOnOneServerAndTwoShards() throws {
        if let reason = ClickHouseServers.unavailable {
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(reason) }
            throw XCTSkip(reason)
        }
        let servers = try ClickHouseServers.shared()
        let sqlite = try sqliteStore(["glp1", "trendy"])
        for address in [servers.single(ClickHouseServers.database("facts")), servers.cluster(ClickHouseServers.database("facts"))] {
            let store = try ClickHouseStore(location: try ClickHouseLocation(address), migrations: ClickHouseFacts.migrations)
            try ClickHouseCopy.copy(sqlite, into: store)
            for flow in ["glp1", "trendy"] {
                let definition = try XCTUnwrap(Flows.builtIn.first { $0.id == flow })
                let latest = try XCTUnwrap(try sqlite.latestEventTime(notAfter: nil))
                for asOf in [latest, Timestamp(micros: latest.micros - 3 * 86_400_000_000)] {
                    let expected = try facts { try ProjectionStore.forEachFacts(flow: flow, definition: definition, store: sqlite, asOf: asOf, $0) }
                    XCTAssertGreaterThan(expected.count, 100, flow)
                    // The first read folds and writes the rows, the second reads them.
                    for _ in 0..<2 {
                        let got = try facts { try ClickHouseFacts.forEachFacts(store: store, flow: flow, definition: definition, asOf: asOf, $0) }
                        XCTAssertEqual(got.count, expected.count, "\(address) \(flow) \(asOf)")
                        // As bytes: a step not reached has NaN seconds, which is never == itself.
                        XCTAssertEqual(got.map { $0.binary() }, expected.map { $0.binary() }, "\(address) \(flow) \(asOf)")
                    }
                }
            }
            // One row per journey, each on the shard that holds its user's events.
            var rows = 0
            for server in store.servers {
                let n = String(decoding: try server.read("""
                    SELECT count() FROM journey_facts WHERE user_id NOT IN (SELECT user_id FROM \(store.layout.shardEvents))
                    """, doing: "checking"), as: UTF8.self)
                XCTAssertEqual(n, "0\n")
                rows += Int(String(decoding: try server.read("SELECT count() FROM journey_facts", doing: "counting"), as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            }
            let journeys = try ["glp1", "trendy"].map { try ProjectionStore.journeys(flow: $0, definition: nil, store: sqlite).count }.reduce(0, +)
            XCTAssertEqual(rows, journeys, address)
        }
    }
}
