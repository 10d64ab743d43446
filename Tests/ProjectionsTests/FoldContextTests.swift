import XCTest
import Foundation
import FunnelModel
import LogFiles
import EventStore
import TestSupport
@testable import Projections
@testable import Journeys

/// The part of an input's fold that may run before the input commits: the journeys of users
/// new with the input, from their held events alone.
final class FoldContextTests: DayFilesTestCase {
    /// An input of four users' events held as the parser holds them: u-1 and u-2 new with it,
    /// u-3 with events before it, and u-4 new but past the buffer (no events held).
    func pending() throws -> PendingFold {
        let steps = ["signIn", "journeyStatus", "medicationSelection"]
        var decoder = EventDecoder()
        var parts = EventParts()
        var buffered: [JourneyKey: [HeldEvent]?] = [:]
        var order: [JourneyKey] = []
        var keys: [String: Int32] = [:]
        var seq: Int64 = 100
        for user in ["u-1", "u-2", "u-3", "u-4"] {
            let key = JourneyKey(flow: "glp1", user: user)
            order.append(key)
            var held: [HeldEvent] = []
            for (i, step) in steps.enumerated() where user != "u-2" || i < 2 {
                let name = i == 0 && user != "u-3" ? "onboarding.started" : "onboarding.step_viewed"
                let line = #"{"event_id":"\#(user)-\#(i)","event":"\#(name)","user_id":"\#(user)","ts":"2026-10-01T10:0\#(i):00Z","flow":"glp1","step":"\#(step)","context":{"platform":"ios"}}"#
                let bytes = Array(line.utf8)
                try bytes.withUnsafeBufferPointer { b in
                    guard case .success(let env) = decoder.envelope(b) else { throw CocoaError(.coderReadCorrupt) }
                    let text = "\(name)|\(step)"
                    let number = keys[text] ?? Int32(keys.count)
                    keys[text] = number
                    seq += 1
                    held.append(parts.hold(seq: seq, names: parts.names(ofKey: number, env, in: b), shape: -1, env, in: b))
                }
            }
            buffered[key] = user == "u-4" ? .some(nil) : held
        }
        return PendingFold(order: order, buffered: buffered, table: parts.table, firstSeq: 101,
                           newUsers: ["u-1", "u-2", "u-4"], through: seq)
    }

    func testNewUsersWithHeldEventsFoldBeforeTheCommitAndTheRestStaysInOrder() throws {
        let definition = try glp1
        let context = FoldContext(definitions: ["glp1": definition], contexts: ["glp1": FlowContext(definition)], workers: 1)
        var p = try pending()
        var early: [FoldedRow] = []
        let counts = try context.foldNew(&p) { early += $0 }
        XCTAssertEqual(counts.fromMemory, 2)
        XCTAssertEqual(early.map(\.key.user), ["u-1", "u-2"])
        XCTAssertEqual(p.order.map(\.user), ["u-3", "u-4"])
        XCTAssertNil(p.buffered[JourneyKey(flow: "glp1", user: "u-1")] as Any?)
        XCTAssertNotNil(p.buffered[JourneyKey(flow: "glp1", user: "u-3")] as Any?)
        // Each row is the one the whole fold gives for that user, byte for byte.
        var whole = try pending()
        let store = try EventStore(path: dir.appendingPathComponent("s.sqlite").path, migrations: ProjectionStore.migrations)
        var all: [FoldedRow] = []
        _ = try store.writer.read { db in try context.fold(&whole, in: db) { all += $0 } }
        for row in early {
            guard case .row(let mine) = row.outcome,
                  case .row(let theirs)? = all.first(where: { $0.key == row.key })?.outcome else {
                return XCTFail("\(row.key.user) was not folded into a row")
            }
            XCTAssertFalse(row.fromLog)
            XCTAssertEqual(mine.data, theirs.data, row.key.user)
            XCTAssertEqual(mine.facts, theirs.facts, row.key.user)
            XCTAssertEqual(mine.currentStep, row.key.user == "u-2" ? "journeyStatus" : "medicationSelection")
        }
        // Nothing is new: nothing is taken.
        var none = try pending()
        none.newUsers = []
        XCTAssertEqual(try context.foldNew(&none) { _ in XCTFail("no user is new") }.fromMemory, 0)
        XCTAssertEqual(none.order.count, 4)
    }
}
