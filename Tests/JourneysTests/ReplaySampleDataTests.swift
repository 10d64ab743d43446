import XCTest
import TestSupport
import Foundation
import FunnelModel
import EventStore
import Flows
@testable import Projections
@testable import Journeys

/// Replays real journeys of every seed flow from the bundled sample data: the verdict is
/// the one the report counts, and the journeys the issue names are explained.
final class ReplaySampleDataTests: XCTestCase {
    struct Loaded {
        var store: EventStore
        var definition: FlowDefinition
        var journeys: [Journey]
        var asOf: Timestamp
    }

    func load(_ flow: String) throws -> Loaded {
        let dir = repositoryRoot.appendingPathComponent("sample-data/\(flow)").path
        let store = try ingest([dir], into: temporaryStorePath())
        let definition = try FlowCatalog().flow(flow)
        let asOf = try XCTUnwrap(try store.defaultAsOf(now: Timestamp(micros: Int64.max / 2)))
        return Loaded(store: store, definition: definition,
                      journeys: try ProjectionStore.journeys(flow: flow, definition: definition, store: store), asOf: asOf)
    }

    func replay(_ l: Loaded, _ user: String) throws -> Replay {
        let events = try l.store.events(user: user, flow: l.definition.id)
        let copies = try l.store.duplicates(ofEventIDs: events.map(\.event.id)).mapValues { $0.map { "\($0.inputPath) line \($0.line)" } }
        return try XCTUnwrap(Replay.build(events: events, definition: l.definition, asOf: l.asOf, idleSeconds: 86_400, duplicates: copies))
    }

    func testEveryUserOfEveryFlowReplaysToTheReportsVerdict() throws {
        for flow in ["glp1", "baby-basics", "screentime-rewards", "shieldai", "trendy"] {
            let l = try load(flow)
            XCTAssertGreaterThan(l.journeys.count, 100, flow)
            var back = 0, resumed = 0, late = 0, duplicates = 0
            for j in l.journeys {
                let r = try replay(l, j.userID)
                let expected = j.started ? j.state(asOf: l.asOf, idleSeconds: 86_400).rawValue : "not_started"
                XCTAssertEqual(r.state, expected, "\(flow) \(j.userID)")
                XCTAssertEqual(r.currentStep, j.currentStep, "\(flow) \(j.userID)")
                XCTAssertEqual(r.lane, j.lane, "\(flow) \(j.userID)")
                XCTAssertEqual(r.events.map(\.eventID).count, j.events, "\(flow) \(j.userID)")
                if r.events.contains(where: { $0.notes.contains { $0.hasPrefix("back from") } }) { back += 1 }
                if r.events.contains(where: { $0.gap != nil }) { resumed += 1 }
                if r.events.contains(where: { $0.flags.contains { $0.hasPrefix("arrived late") } }) { late += 1 }
                if r.events.contains(where: { !$0.duplicateCopies.isEmpty }) { duplicates += 1 }
            }
            XCTAssertGreaterThan(back, 0, "\(flow): no journey with back navigation")
            XCTAssertGreaterThan(resumed, 0, "\(flow): no journey resumed after leaving the app")
            XCTAssertGreaterThan(late, 0, "\(flow): no journey with events that arrived out of order")
            XCTAssertGreaterThan(duplicates, 0, "\(flow): no journey with re-sent duplicates")
        }
    }

    func testGLP1JourneysTheIssueNames() throws {
        let l = try load("glp1")
        // Dropped at a conditional step: abandoned on goalWeight, weightPace or injectionDaySelection.
        let conditional = Set(["goalWeight", "weightPace", "injectionDaySelection", "trackingStyle", "trackingAffirmation"])
        let dropped = try XCTUnwrap(l.journeys.first {
            $0.state(asOf: l.asOf, idleSeconds: 86_400) == .abandoned && conditional.contains($0.currentStep ?? "")
        }, "no glp1 user abandoned at a conditional step in the sample data")
        let r = try replay(l, dropped.userID)
        XCTAssertTrue(r.verdict.hasPrefix("abandoned at \(dropped.currentStep ?? "")"), r.verdict)
        XCTAssertEqual(r.path.first { $0.step == dropped.currentStep }?.status, .shown)
        // A maintain user: goalWeight and weightPace off the path, with the reason.
        let maintain = try XCTUnwrap(l.journeys.first { $0.values["weightGoal"] == .string("maintain") })
        let m = try replay(l, maintain.userID)
        XCTAssertTrue(m.skipped.contains("goalWeight not on the path: weightGoal = maintain"), "\(m.skipped)")
        XCTAssertTrue(m.skipped.contains("weightPace not on the path: weightGoal = maintain"), "\(m.skipped)")
        // Flag off: trackingStyle off the path, with the flag named.
        let flagOff = try XCTUnwrap(l.journeys.first { $0.lane != nil && $0.flags["trackingStyleQuestion"]?.boolValue == false })
        XCTAssertTrue(try replay(l, flagOff.userID).skipped.contains("trackingStyle not on the path: flag trackingStyleQuestion off"))
        // Lane chosen and why.
        let lane = try XCTUnwrap(l.journeys.first { $0.lane == "glp1" })
        XCTAssertEqual(try replay(l, lane.userID).laneReason, "journeyStatus = already_on_glp1")
        // An explorer without completionScreenForExplorers completes silently on planPreview.
        let silent = try XCTUnwrap(l.journeys.first {
            $0.lane == "explorers" && $0.completedAt != nil && $0.flags["completionScreenForExplorers"]?.boolValue == false
        })
        let s = try replay(l, silent.userID)
        XCTAssertEqual(s.state, "completed")
        XCTAssertTrue(s.skipped.contains("completion not on the path: flag completionScreenForExplorers off"), "\(s.skipped)")
        XCTAssertTrue(s.events.contains { $0.event == "onboarding.completed" && $0.step == "planPreview" })
    }
}
