import XCTest
import Foundation
import FunnelModel
@testable import Journeys

/// A fold's path, which shares the expected path's entries and keeps a byte a step, reads,
/// compares, encodes and stores as the same steps given one by one.
final class JourneyPathTests: XCTestCase {
    private let entries: [ExpectedPath.Entry] = [
        .init(step: "welcome", status: .shown), .init(step: "signIn", status: .shown),
        .init(step: "paywall", status: .skipped("flag newPaywall off")),
        .init(step: "goal", status: .undetermined("weightGoal = maintain")), .init(step: "done", status: .shown),
    ]
    /// welcome before the start; signIn reached and eligible; paywall skipped but reached;
    /// goal undetermined; done eligible, not reached.
    private let bits: [UInt8] = [3 | 4, 0 | 4 | 8, 1 | 4, 2, 0 | 8]
    private let steps: [Journey.PathStep] = [
        .init(step: "welcome", status: .beforeStart, reason: nil, reached: true, eligible: false),
        .init(step: "signIn", status: .shown, reason: nil, reached: true, eligible: true),
        .init(step: "paywall", status: .skipped, reason: "flag newPaywall off", reached: true, eligible: false),
        .init(step: "goal", status: .undetermined, reason: "weightGoal = maintain", reached: false, eligible: false),
        .init(step: "done", status: .shown, reason: nil, reached: false, eligible: true),
    ]

    func testSharedEntriesReadAsTheirSteps() throws {
        let shared = JourneyPath(entries: entries, bits: bits)
        let given = JourneyPath(steps)
        XCTAssertEqual(Array(shared), steps)
        XCTAssertEqual(shared, given)
        XCTAssertEqual(shared.hashValue, given.hashValue)
        for i in steps.indices {
            XCTAssertEqual(shared.step(at: i), given.step(at: i))
            XCTAssertEqual(shared.bits(at: i), given.bits(at: i))
            XCTAssertEqual(shared.reason(at: i), given.reason(at: i))
        }
        XCTAssertEqual(shared.first { $0.step == "goal" }?.status, .undetermined)
        var other = steps
        other[4].reached = true
        XCTAssertNotEqual(shared, JourneyPath(other))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        XCTAssertEqual(try encoder.encode(shared), try encoder.encode(steps))
        XCTAssertEqual(try JSONDecoder().decode(JourneyPath.self, from: try encoder.encode(shared)), shared)
    }

    /// The stored bytes are the same either way, and read back to the same path.
    func testStoredBytesAreTheSameSharedOrGiven() throws {
        var journey = Journey(
            userID: "u-1", flow: "mini", startedAt: nil, startStep: nil, completedAt: nil,
            firstEventAt: Timestamp(micros: 1_790_000_000_000_000, offsetSeconds: 0),
            lastEventAt: Timestamp(micros: 1_790_000_100_000_000, offsetSeconds: 0), currentStep: nil, lane: nil,
            laneReason: "", values: [:], flags: [:], appVersion: nil, platform: nil, visits: [], path: [], events: 2,
            unplanned: 0, backNavigations: 0, signInFailures: 0, deviations: [])
        let names = JourneyNames(names: ["welcome", "signIn", "paywall", "goal", "done"])
        journey.path = JourneyPath(steps)
        let given = journey.binary(names: names)
        journey.path = JourneyPath(entries: entries, bits: bits)
        XCTAssertEqual(journey.binary(names: names), given)
        XCTAssertEqual(try Journey(binary: given, names: names), journey)
        XCTAssertEqual(try Journey(binary: journey.binary(names: .none)), journey)
    }
}
