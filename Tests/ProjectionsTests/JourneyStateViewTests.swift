import XCTest
import TestSupport
import GRDB
import FunnelModel
import EventStore
import Flows
@testable import Projections
@testable import Journeys

/// The `journey_state` view: each journey of the projection as text, with the state a report
/// gives it by default.
final class JourneyStateViewTests: XCTestCase {
    struct StateRow: Equatable {
        var flow: String, user: String, lane: String?, step: String?, state: String?
        var started: String?, completed: String?, last: String
    }

    func testEveryJourneyAsTheReportSeesIt() throws {
        let flows = ["glp1", "baby-basics", "shieldai"]
        let store = try ingest(flows.map { repositoryRoot.appendingPathComponent("sample-data/\($0)").path },
                               into: temporaryStorePath())
        let rows = try store.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT flow, user_id, lane, current_step, state, started_at, completed_at, last_event_at
                FROM journey_state ORDER BY flow, user_id
                """).map { StateRow(flow: $0[0], user: $0[1], lane: $0[2], step: $0[3], state: $0[4],
                                    started: $0[5], completed: $0[6], last: $0[7]) }
        }
        guard let asOf = try store.defaultAsOf(now: Timestamp(micros: Int64.max / 2)) else {
            return XCTFail("no as-of")
        }
        var expected: [StateRow] = []
        for flow in flows.sorted() {
            let definition = try FlowCatalog().flow(flow)
            for j in try ProjectionStore.journeys(flow: flow, definition: definition, store: store) {
                expected.append(StateRow(flow: flow, user: j.userID, lane: j.lane, step: j.currentStep,
                                         state: j.started ? j.state(asOf: asOf, idleSeconds: Journey.defaultIdleSeconds).rawValue : nil,
                                         started: j.startedAt?.description, completed: j.completedAt?.description,
                                         last: j.lastEventAt.description))
            }
        }
        expected.sort { ($0.flow, $0.user) < ($1.flow, $1.user) }
        XCTAssertEqual(rows.count, expected.count)
        XCTAssertEqual(rows, expected)
        // Every state occurs, so the rule is checked on each branch.
        XCTAssertEqual(Set(rows.compactMap(\.state)), ["completed", "in_progress", "abandoned"])
        let glp1 = rows.filter { $0.flow == "glp1" && $0.state != nil }
        XCTAssertEqual(glp1.count, 393)
        XCTAssertEqual(glp1.filter { $0.state == "completed" }.count, 256)
    }
}
