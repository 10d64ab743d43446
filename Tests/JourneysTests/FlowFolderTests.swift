import XCTest
import FunnelModel
import Flows
import EventStore
@testable import Projections
import TestSupport
@testable import Journeys

final class FlowFolderTests: XCTestCase {
    /// A fold encoded halfway through a user's events and resumed from its bytes (as a held
    /// journey goes on between inputs) ends at the journey folded straight through, and at the
    /// one the SQLite store keeps.
    func testAFoldEncodedAndResumedHalfwayGoesOnToTheSameJourney() throws {
        let store = try ingest([repositoryRoot.appendingPathComponent("sample-data/glp1").path], into: temporaryStorePath())
        let definition = try XCTUnwrap(Flows.builtIn.first { $0.id == "glp1" })
        let folder = FlowFolder(definition)
        var compared = 0, viewedAfter = 0
        for stored in try ProjectionStore.journeys(flow: "glp1", definition: definition, store: store) {
            let events = try store.events(user: stored.userID, flow: "glp1")
            let order = events.foldOrderIndices
            guard order.count >= 4 else { continue }
            let half = order.count / 2
            var straight = JourneyFold(userID: stored.userID, flow: "glp1", definition: definition)
            var first = straight
            for i in order[..<half] {
                straight.apply(events[i], explain: false)
                first.apply(events[i], explain: false)
            }
            var resumed = try XCTUnwrap(folder.resume(folder.encode(first)), stored.userID)
            for i in order[half...] {
                straight.apply(events[i], explain: false)
                resumed.apply(events[i], explain: false)
                if events[i].event.known == .stepViewed { viewedAfter += 1 }
            }
            let journey = resumed.finish()
            XCTAssertEqual(journey, straight.finish(), stored.userID)
            XCTAssertEqual(journey, stored, stored.userID)
            compared += 1
        }
        XCTAssertGreaterThan(compared, 100)
        XCTAssertGreaterThan(viewedAfter, 100)
        XCTAssertNil(folder.resume([0xFF, 0x00]))
    }
}
