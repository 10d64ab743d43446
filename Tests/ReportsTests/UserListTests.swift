import XCTest
import Foundation
import FunnelModel
import EventStore
import Flows
import Projections
import TestSupport
@testable import Reports
import Journeys

/// `funnel users` reads the journeys' glances: on the GLP-1 sample, under a cohort, `--where`
/// filters on an answer, a flag and the platform, a window, an as-of in the past, a state and
/// a current step, its rows are those worked out from the whole journeys as the report's
/// selection reads them.
final class UserListTests: XCTestCase {
    static let store: Result<EventStore, any Error> = Result { try JourneySourceReportsTests.sampleStore(["glp1"]) }

    /// The rows the whole journeys give for `request`, by the report's own selection.
    func expected(_ request: ReportRequest, state: Journey.State?, step: String?, store: EventStore) throws -> [UserList.Row] {
        let definition = try FlowCatalog().flow("glp1")
        let query = try request.query(for: definition, defaultAsOf: try store.defaultAsOf(now: JourneySourceReportsTests.now))
        var journeys: [Journey] = []
        try store.forEachJourney(flow: "glp1", definition: definition, asOf: query.asOf) { journeys.append($0) }
        return journeys.filter { query.selects($0, definition: definition) }.compactMap { j -> UserList.Row? in
            let s = j.state(asOf: query.asOf, idleSeconds: query.idleSeconds)
            if let state, s != state { return nil }
            if let step, j.currentStep != step { return nil }
            return UserList.Row(userID: j.userID, state: s.rawValue, currentStep: j.currentStep, lane: j.lane,
                                startedAt: j.startedAt?.description, completedAt: j.completedAt?.description,
                                lastEventAt: j.lastEventAt.description, secondsToComplete: j.secondsToComplete,
                                appVersion: j.appVersion)
        }.sorted { UserList.Row.precedes($0.userID, $1.userID) }
    }

    func testRowsAreThoseOfTheWholeJourneysUnderEverySelection() throws {
        let store = try Self.store.get()
        let cases: [(ReportRequest, Journey.State?, String?)] = [
            (ReportRequest(flow: "glp1"), nil, nil),
            (ReportRequest(flow: "glp1", cohort: "glp1"), .abandoned, nil),
            (ReportRequest(flow: "glp1", filters: ["weightGoal=lose"]), nil, "notificationsPermission"),
            (ReportRequest(flow: "glp1", filters: ["flag:trackingStyleQuestion=true", "platform=ios"]), .completed, nil),
            (ReportRequest(flow: "glp1", since: "2026-10-02", until: "2026-10-04"), .abandoned, "signIn"),
            (ReportRequest(flow: "glp1", asOf: "2026-10-03T12:00:00Z"), .inProgress, nil),
            (ReportRequest(flow: "glp1", asOf: "2026-10-03T12:00:00Z"), .abandoned, nil),
        ]
        var nonEmpty = 0
        for (request, state, step) in cases {
            let got = try request.users(source: store, definitions: Flows.builtIn, now: JourneySourceReportsTests.now,
                                        state: state?.rawValue, step: step)
            let want = try expected(request, state: state, step: step, store: store)
            XCTAssertEqual(got.users, want, "\(request) \(String(describing: state)) \(step ?? "-")")
            if !want.isEmpty { nonEmpty += 1 }
        }
        XCTAssertEqual(nonEmpty, cases.count, "every selection lists some users")
    }
}
