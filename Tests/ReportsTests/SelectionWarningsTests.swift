import XCTest
import Foundation
import FunnelModel
import LogFiles
import EventStore
import Flows
import Projections
import Journeys
import TestSupport
@testable import Reports

/// Nothing silently empty: a window that holds no time is an error, a `--where` value neither
/// the definition nor the logs know is an error (one the logs have is kept), and an empty
/// selection says why (no events of the flow, a window or as-of outside the data).
final class SelectionWarningsTests: XCTestCase {
    static let now = Timestamp(micros: Int64.max / 2)

    /// The GLP-1 sample data in a store of its own.
    static let store: Result<EventStore, any Error> = Result { try JourneySourceReportsTests.sampleStore(["glp1"]) }

    func testAWindowThatHoldsNoTimeIsAnError() throws {
        XCTAssertThrowsError(try ReportRequest(flow: "glp1", since: "2026-10-05", until: "2026-10-05").validate(definitions: Flows.builtIn)) {
            XCTAssertEqual("\($0)", "--until (2026-10-05T00:00:00.000Z) is not after --since (2026-10-05T00:00:00.000Z): the window holds no time")
        }
        XCTAssertThrowsError(try Inputs.window(since: "2026-10-05T12:00:00Z", until: "2026-10-05"))
        let ok = try Inputs.window(since: "2026-10-04", until: "2026-10-05")
        XCTAssertEqual(ok.until.map { $0.micros - (ok.since?.micros ?? 0) }, 86_400_000_000)
    }

    func testAValueNeitherTheDefinitionNorTheLogsKnowIsAnError() throws {
        let store = try Self.store.get()
        let typo = ReportRequest(flow: "glp1", filters: ["weightGoal=maintian"])
        XCTAssertThrowsError(try typo.run(source: store, definitions: Flows.builtIn, now: Self.now)) {
            XCTAssertEqual("\($0)", "--where \"weightGoal=maintian\": flow glp1 has no weightGoal value \"maintian\"; weightGoal is one of: gain, lose, maintain")
        }
        // A definition that no longer lists `maintain`: the logs still have it, so it is kept
        // (that is drift to look at, not a typo), and the typo's message names it.
        var glp1 = try XCTUnwrap(Flows.builtIn.first { $0.id == "glp1" })
        for i in glp1.steps.indices {
            for j in glp1.steps[i].collects.indices where glp1.steps[i].collects[j].key == "weightGoal" {
                glp1.steps[i].collects[j].values = ["lose", "gain"]
            }
        }
        let drifted = try ReportRequest(flow: "glp1", filters: ["weightGoal=maintain"]).run(source: store, definitions: [glp1], now: Self.now)
        let listed = try ReportRequest(flow: "glp1", filters: ["weightGoal=maintain"]).run(source: store, definitions: Flows.builtIn, now: Self.now)
        XCTAssertGreaterThan(drifted.users.started, 0)
        XCTAssertEqual(drifted.users.started, listed.users.started)
        XCTAssertThrowsError(try typo.run(source: store, definitions: [glp1], now: Self.now)) {
            XCTAssertEqual("\($0)", "--where \"weightGoal=maintian\": flow glp1 has no weightGoal value \"maintian\"; weightGoal is one of: gain, lose (and in the logs, outside the definition: maintain)")
        }
        // The users list checks the same way.
        XCTAssertThrowsError(try typo.users(source: store, definitions: Flows.builtIn, now: Self.now, state: nil, step: nil))
    }

    func testAnEmptySelectionSaysWhy() throws {
        let store = try Self.store.get()
        let latest = try XCTUnwrap(try store.latestEventTime(notAfter: nil))
        func warnings(_ request: ReportRequest) throws -> [String] {
            let report = try request.run(source: store, definitions: Flows.builtIn, now: Self.now)
            return try request.warnings(for: report, source: store, definitions: Flows.builtIn, now: Self.now)
        }
        XCTAssertEqual(try warnings(ReportRequest(flow: "trendy")), ["the store holds no events of flow trendy; it holds events of: glp1"])
        XCTAssertEqual(try warnings(ReportRequest(flow: "glp1", since: "2027-01-01")),
                       ["no user started in flow glp1 in the window before as-of \(latest); the store's latest event is at \(latest)"])
        XCTAssertEqual(try warnings(ReportRequest(flow: "glp1", asOf: "2026-01-01")),
                       ["no user started in flow glp1 before as-of 2026-01-01T00:00:00.000Z; the store's latest event is at \(latest)"])
        XCTAssertEqual(try warnings(ReportRequest(flow: "glp1", asOf: "2027-01-01")),
                       ["--as-of 2027-01-01 is after the latest event in the store (\(latest)): users idle since count as abandoned"])
        XCTAssertEqual(try warnings(ReportRequest(flow: "glp1", since: "2026-10-02", asOf: "2026-10-05")), [])
    }
}
