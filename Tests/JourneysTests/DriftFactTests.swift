import XCTest
import TestSupport
import FunnelModel
@testable import Projections
@testable import Journeys

/// A journey's drift facts: each way its events depart from the mini flow, with the time it
/// first did, through the fold and the facts' bytes.
final class DriftFactTests: XCTestCase {
    func testEachKindOfDriftIsFoundWithItsTime() throws {
        var b = JourneyBuilder("u1", flags: ["trackingStyleQuestion": .bool(true), "newPaywall": .bool(true)])
        b.add(0, "onboarding.started", "signIn")
        b.add(1, "onboarding.step_viewed", "signIn")
        b.add(2, "onboarding.step_viewed", "journeyStatus")
        b.add(3, "onboarding.step_completed", "journeyStatus", ["journeyStatus": .string("signup")])
        b.add(4, "onboarding.step_viewed", "weightGoal")
        b.add(5, "onboarding.step_viewed", "streakIntro")
        b.add(6, "app.rated", nil)
        b.add(7, "onboarding.completed", "weightGoal")
        let journey = try XCTUnwrap(JourneyFold.journey(of: b.events, definition: miniFlow))
        XCTAssertNil(journey.lane)
        let start = b.start.micros
        func at(_ minute: Int64) -> Int64 { start + minute * 60_000_000 }
        let facts = DriftFact.facts(of: journey, vocabulary: FlowVocabulary(miniFlow))
        XCTAssertEqual(facts, [
            DriftFact(kind: .unlistedValue, name: "journeyStatus", detail: "signup", at: at(3)),
            DriftFact(kind: .stepNotInFlow, name: "streakIntro", at: at(5)),
            DriftFact(kind: .unknownEvent, name: "app.rated", at: at(6)),
            DriftFact(kind: .undeclaredFlag, name: "newPaywall", at: at(0)),
            DriftFact(kind: .completedWithoutTerminal, name: "planPreview", at: at(7)),
        ])
        // Through the facts' bytes.
        var slots: [String: Int] = [:]
        for (i, s) in JourneyFacts.slots(miniFlow).enumerated() { slots[s] = i }
        let saved = JourneyFacts(journey, definition: miniFlow, slots: slots)
        XCTAssertEqual(saved.drift, facts)
        var decoded = JourneyFacts.empty
        try saved.binary().withUnsafeBytes { try decoded.decode($0) }
        XCTAssertEqual(decoded.drift, facts)
        // A clean journey has none, and decoding it into the same value clears them.
        var clean = JourneyBuilder("u2", flags: ["trackingStyleQuestion": .bool(true)])
        clean.add(0, "onboarding.started", "signIn")
        clean.add(1, "onboarding.step_viewed", "signIn")
        clean.add(2, "onboarding.step_completed", "journeyStatus", ["journeyStatus": .string("already_on_glp1")])
        clean.add(3, "onboarding.step_viewed", "medication")
        let cleanJourney = try XCTUnwrap(JourneyFold.journey(of: clean.events, definition: miniFlow))
        XCTAssertEqual(cleanJourney.lane, "glp1")
        try JourneyFacts(cleanJourney, definition: miniFlow, slots: slots).binary().withUnsafeBytes { try decoded.decode($0) }
        XCTAssertEqual(decoded.drift, [])
        // An explorer viewing the glp1 lane's medication screen: off their lane.
        var explorer = JourneyBuilder("u3")
        explorer.add(0, "onboarding.started", "signIn")
        explorer.add(1, "onboarding.step_completed", "journeyStatus", ["journeyStatus": .string("about_to_start")])
        explorer.add(2, "onboarding.step_viewed", "weightGoal")
        explorer.add(3, "onboarding.step_viewed", "medication")
        let offLane = try XCTUnwrap(JourneyFold.journey(of: explorer.events, definition: miniFlow))
        XCTAssertEqual(offLane.lane, "explorers")
        XCTAssertEqual(DriftFact.facts(of: offLane, vocabulary: FlowVocabulary(miniFlow)),
                       [DriftFact(kind: .stepOffLane, name: "medication", detail: "explorers", at: at(3))])
    }

    func testAFoldGoingOnFromAStoredJourneyKeepsTheFirstTimes() throws {
        var b = JourneyBuilder("u1", flags: ["newPaywall": .bool(true)])
        b.add(0, "onboarding.started", "signIn")
        b.add(1, "onboarding.step_completed", "journeyStatus", ["journeyStatus": .string("signup")])
        let whole = b.events
        b.add(2, "onboarding.step_completed", "journeyStatus", ["journeyStatus": .string("signup")])
        b.add(3, "app.rated", nil)
        let fold = try XCTUnwrap(JourneyFold.fold(whole, definition: miniFlow))
        // Stored and read back, as ingest does between inputs.
        let bytes = fold.finish().binary(resume: fold.resume)
        let (journey, state) = try bytes.withUnsafeBytes { try Journey.decode(binary: $0) }
        var resumed = JourneyFold(resuming: journey, try XCTUnwrap(state), definition: miniFlow)
        for e in b.events.dropFirst(2) { resumed.apply(e) }
        let once = try XCTUnwrap(JourneyFold.journey(of: b.events, definition: miniFlow))
        XCTAssertEqual(resumed.finish().driftSeen, once.driftSeen)
        XCTAssertEqual(once.driftSeen[DriftKey.value("journeyStatus", "signup")], b.start.adding(seconds: 60))
        XCTAssertEqual(once.driftSeen[DriftKey.event("app.rated")], b.start.adding(seconds: 180))
    }
}
