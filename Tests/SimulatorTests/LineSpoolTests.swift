import Flows
import Foundation
import XCTest
@testable import Simulator
import TestSupport

/// The spool holds what the in-memory simulation holds, line for line, in a file without a
/// name.
final class LineSpoolTests: XCTestCase {
    func testSpoolHoldsTheLinesOfTheInMemoryRun() throws {
        let simulation = try Simulation(flow: FlowCatalog().flow("glp1"), options: SimulationOptions(users: 700, seed: 9, days: 3))
        let memory = simulation.run()
        let folder = Scratch.directory("spool").path
        let spooled = try simulation.spool(in: folder)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [], "the spool has no name in its folder")
        XCTAssertGreaterThan(memory.events.count, 10_000)
        XCTAssertEqual(spooled.lines.count, memory.events.count)
        XCTAssertEqual(spooled.users, 700)
        XCTAssertEqual(spooled.started, memory.users.filter(\.started).count)
        XCTAssertEqual(spooled.completed, memory.users.filter(\.completed).count)
        XCTAssertGreaterThan(spooled.completed, 0)
        XCTAssertLessThan(spooled.completed, spooled.started)
        // Every line's bytes, time and user, read back in an order unlike the writing's.
        var fromSpool: [UInt8] = [], fromMemory: [UInt8] = []
        for i in stride(from: memory.events.count - 1, through: 0, by: -1) {
            XCTAssertEqual(spooled.lines.eventMicros(i), memory.events.eventMicros(i))
            XCTAssertEqual(spooled.lines.userIndex(i), memory.events.userIndex(i))
            try spooled.lines.appendLine(i, to: &fromSpool)
            memory.events.appendLine(i, to: &fromMemory)
        }
        XCTAssertEqual(fromSpool.count, memory.events.bytes.count)
        XCTAssertEqual(fromSpool, fromMemory)
        XCTAssertEqual(fromSpool.last, 10)
    }
}
