import XCTest
import TestSupport
import FunnelModel
@testable import Projections
@testable import Journeys

final class ReplayTests: XCTestCase {
    func testOutOfOrderArrivalGapsAndVerdict() throws {
        var b = JourneyBuilder("u-7", flags: ["trackingStyleQuestion": .bool(false)])
        b.add(0, "onboarding.started", "signIn")
        b.view(0, "signIn")
        b.view(2, "journeyStatus")
        b.answer(3, "journeyStatus", ["journeyStatus": .string("already_on_glp1")])
        b.view(3, "medication")
        // app killed; resumed 5 h 12 min later on the same step
        b.view(3 + 312, "medication")
        b.view(1, "signIn")                 // a batch that arrived late
        b.view(320, "weightGoal")
        b.answer(321, "weightGoal", ["weightGoal": .string("maintain")])
        b.view(322, "planPreview")
        let asOf = b.start.adding(seconds: 4 * 86_400)
        let r = try XCTUnwrap(Replay.build(events: b.events, definition: miniFlow, asOf: asOf, idleSeconds: 86_400,
                                           duplicates: ["u-7-2": ["events-2026-10-02.ndjson.gz line 4"]]))
        XCTAssertEqual(r.state, "abandoned")
        XCTAssertEqual(r.currentStep, "planPreview")
        XCTAssertEqual(r.lane, "glp1")
        XCTAssertEqual(r.events.map(\.seq), [1, 2, 7, 3, 4, 5, 6, 8, 9, 10])
        XCTAssertTrue(r.events[2].flags.contains { $0.hasPrefix("arrived late") }, "\(r.events[2].flags)")
        XCTAssertEqual(r.events.filter { $0.flags.contains { $0.hasPrefix("arrived late") } }.count, 1)
        XCTAssertEqual(r.events[6].gap, "left the app for 5 h 12 min")
        XCTAssertTrue(r.events[1].flags.contains("arrived 2 times: duplicates dropped"))
        XCTAssertEqual(r.events[6].notes, ["medication shown again"])
        XCTAssertEqual(r.skipped, ["goalWeight not on the path: weightGoal = maintain",
                                   "trackingStyle not on the path: flag trackingStyleQuestion off"])
        XCTAssertTrue(r.verdict.hasPrefix("abandoned at planPreview"), r.verdict)
        // The verdict is the one the report counts.
        let j = try XCTUnwrap(JourneyFold.journey(of: b.events, definition: miniFlow))
        XCTAssertEqual(j.state(asOf: asOf, idleSeconds: 86_400).rawValue, r.state)
    }

    func testAtShowsTheJourneyAsOfThatTime() throws {
        var b = JourneyBuilder("u-8")
        b.add(0, "onboarding.started", "signIn")
        b.view(0, "signIn")
        b.view(60, "journeyStatus")
        let at = b.start.adding(seconds: 30 * 60)
        let r = try XCTUnwrap(Replay.build(events: b.events, definition: miniFlow, asOf: at, idleSeconds: 86_400))
        XCTAssertEqual(r.state, "in_progress")
        XCTAssertEqual(r.currentStep, "signIn")
        XCTAssertEqual(r.afterAsOf, 1)
        XCTAssertEqual(r.events.last?.folded, false)
        XCTAssertEqual(r.events.last?.flags.last, "after as-of \(at): not counted")
    }

    func testBackNavigationIsExplained() throws {
        var b = JourneyBuilder("u-9")
        b.add(0, "onboarding.started", "signIn")
        b.view(0, "signIn")
        b.view(1, "journeyStatus")
        b.add(2, "onboarding.step_back", "journeyStatus", ["to": .string("signIn")])
        b.view(2, "signIn")
        b.view(3, "journeyStatus")
        let r = try XCTUnwrap(Replay.build(events: b.events, definition: miniFlow, asOf: b.start.adding(seconds: 600), idleSeconds: 86_400))
        XCTAssertEqual(r.events[3].notes, ["back from journeyStatus to signIn"])
        XCTAssertEqual(r.events[4].notes, ["journeyStatus → signIn"])
        XCTAssertEqual(r.currentStep, "journeyStatus")
    }
}
