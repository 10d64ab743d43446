import XCTest
import Foundation
import FunnelModel
import Flows
import Simulator
import EventStore
@testable import Projections
import TestSupport
@testable import Journeys

/// What the ingest-and-fold tests share: a scratch folder per test, the GLP-1 definition, day
/// files as a collector writes them (batches out of order, re-sent copies, late events), and
/// the store's GLP-1 journeys.
class DayFilesTestCase: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = Scratch.directory("\(type(of: self))")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    var glp1: FlowDefinition {
        get throws {
            guard let d = Flows.builtIn.first(where: { $0.id == "glp1" }) else { throw XCTSkip("no glp1") }
            return d
        }
    }

    func dayFiles(users: Int, seed: UInt64, start: String = "2026-10-01", days: Int = 3, into name: String) throws -> [String] {
        let sim = try Simulation(flow: try glp1, options: SimulationOptions(users: users, seed: seed, days: days, startDay: start))
        return try CollectorWriter(seed: seed).write(sim.run().events, to: dir.appendingPathComponent(name).path).files
    }

    func journeys(_ store: EventStore) throws -> [Journey] {
        try ProjectionStore.journeys(flow: "glp1", definition: try glp1, store: store)
    }
}
