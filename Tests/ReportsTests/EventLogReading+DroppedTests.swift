import XCTest
import Foundation
import FunnelModel
import EventStore
import Flows
import Projections
import Journeys
@testable import Reports

/// The last events of the users who dropped at a step: read by the seq their journey keeps,
/// or looked up among their events when it keeps none (a journey stored before it was kept),
/// the same events either way.
final class EventLogReadingDroppedTests: XCTestCase {
    func testKnownAndLookedUpLastEventsAgree() throws {
        let store = try JourneySourceReportsTests.store.get()
        let glp1 = try XCTUnwrap(Flows.builtIn.first { $0.id == "glp1" })
        let journeys = try ProjectionStore.journeys(flow: "glp1", definition: glp1, store: store)
        let bound = Timestamp(micros: Int64.max / 2)
        var compared = 0
        for step in ["signIn", "notificationsPermission", "healthKitBenefits"] {
            let here = journeys.filter { $0.currentStep == step }
            XCTAssertTrue(here.allSatisfy { $0.lastSeqOnCurrentStep != nil }, step)
            let users = here.map(\.userID)
            let lookedUp = try store.lastEvents(onStep: step, flow: "glp1", users: users, notAfter: bound)
            // Every other user without the seq, as in a store folded before it was kept.
            let dropped = here.enumerated().map { i, j in
                DropoffTally.Dropped(user: j.userID, lastSeq: i % 2 == 0 ? j.lastSeqOnCurrentStep : nil)
            }
            XCTAssertEqual(try store.lastEvents(onStep: step, flow: "glp1", of: dropped, notAfter: bound), lookedUp, step)
            let allKnown = here.map { DropoffTally.Dropped(user: $0.userID, lastSeq: $0.lastSeqOnCurrentStep) }
            XCTAssertEqual(try store.lastEvents(onStep: step, flow: "glp1", of: allKnown, notAfter: bound), lookedUp, step)
            compared += lookedUp.count
        }
        XCTAssertGreaterThan(compared, 50)
    }
}
