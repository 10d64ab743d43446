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

/// Facts folded during a ClickHouse ingest are the ones folded from the log: journeys new to
/// the store come from memory, journeys with earlier events or late events from the log, and
/// a report after the ingest folds nothing.
final class ClickHouseFactsUpdaterTests: XCTestCase {
    static let glp1 = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("sample-data/glp1")

    /// The sample's daily files: the first `split` days, then the rest.
    func days(_ split: Int) throws -> ([InputSource], [InputSource]) {
        let all = try InputSource.discover([Self.glp1.path])
        XCTAssertEqual(all.count, 9)
        return (Array(all[..<split]), Array(all[split...]))
    }

    func facts(_ read: ((JourneyFacts) throws -> Void) throws -> Bool) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        XCTAssertTrue(try read { out.append(Array($0.binary())) })
        return out.sorted { $0.lexicographicallyPrecedes($1) }
    }

    func testFactsFoldedDuringTheIngestAreTheLogsOnOneServerAndTwoShards() throws {
        if let reason = ClickHouseServers.unavailable {
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(reason) }
            throw XCTSkip(reason)
        }
        let servers = try ClickHouseServers.shared()
        let definition = try XCTUnwrap(Flows.builtIn.first { $0.id == "glp1" })
        let options = IngestOptions(flows: Flows.builtIn)
        let sqlite = try EventStore(path: Scratch.directory("facts-updater").appendingPathComponent("s.sqlite").path,
                                    migrations: ProjectionStore.migrations)
        let (early, late) = try days(5)
        _ = try Ingestor(store: sqlite, options: options, observer: ProjectionUpdater(definitions: Flows.builtIn)).ingest(early + late)
        let asOf = try XCTUnwrap(try sqlite.latestEventTime(notAfter: nil))
        let expected = try facts { try ProjectionStore.forEachFacts(flow: "glp1", definition: definition, store: sqlite, asOf: asOf, $0) }
        XCTAssertEqual(expected.count, 393)
        for address in [servers.single(ClickHouseServers.database("facts_updater")),
                        servers.cluster(ClickHouseServers.database("facts_updater"))] {
            let store = try ClickHouseStore(location: try ClickHouseLocation(address), migrations: ClickHouseFacts.migrations)
            // A cold ingest: every journey is new; those with a late event come from the log.
            let first = ClickHouseFactsUpdater(definitions: Flows.builtIn)
            _ = try ClickHouseIngestor(store: store, options: options, observer: first).ingest(early)
            XCTAssertEqual([first.fromMemory, first.fromLog], [258, 12], address)
            // The users of the first days coming back have earlier events: from the log too.
            let second = ClickHouseFactsUpdater(definitions: Flows.builtIn)
            _ = try ClickHouseIngestor(store: store, options: options, observer: second).ingest(late)
            XCTAssertEqual([second.fromMemory, second.fromLog], [117, 10], address)
            // Nothing is left for a report to fold, and the facts are SQLite's.
            let snapshot = try store.snapshot()
            let fingerprint = FlowFolder(definition).fingerprint
            for server in store.servers {
                let scope = ClickHouseFacts.Scope(store: store, server: server, snapshot: snapshot, flow: "glp1", fingerprint: fingerprint)
                XCTAssertNil(try scope.foldPlan(), "\(address) \(server.server)")
            }
            let got = try facts { try ClickHouseFacts.forEachFacts(store: store, flow: "glp1", definition: definition, asOf: asOf, $0) }
            XCTAssertEqual(got.count, expected.count, address)
            XCTAssertEqual(got, expected, address)
        }
    }
}
