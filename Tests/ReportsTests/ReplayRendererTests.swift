import XCTest
import TestSupport
import FunnelModel
import Projections
@testable import Reports
import Journeys

final class ReplayRendererTests: XCTestCase {
    func testTextFitsAndJsonHasTheContract() throws {
        var seq: Int64 = 0
        func next() -> Int64 { seq += 1; return seq }
        let events = [
            recorded("c", 0, "onboarding.started", "signIn", seq: next()),
            recorded("c", 0, "onboarding.step_viewed", "signIn", seq: next()),
            recorded("c", 1, "onboarding.step_viewed", "journeyStatus", seq: next()),
            recorded("c", 2, "onboarding.step_completed", "journeyStatus", ["journeyStatus": .string("already_on_glp1")], seq: next()),
            recorded("c", 200, "onboarding.step_viewed", "medication", seq: next()),
            recorded("c", 201, "onboarding.rage_tapped_a_very_long_event_name_indeed", "medication", seq: next()),
        ]
        let asOf = reportStart.adding(seconds: 3 * 86_400)
        let r = try XCTUnwrap(Replay.build(events: events, definition: miniFlow, asOf: asOf, idleSeconds: 86_400))
        let text = r.text()
        for line in text.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 80, String(line)) }
        XCTAssertTrue(text.contains("left the app for 3 h 18 min"), text)
        XCTAssertTrue(text.contains("abandoned at medication"), text)
        XCTAssertFalse(text.contains("\u{1B}["), "no colour unless asked")
        XCTAssertTrue(r.text(palette: Palette(enabled: true)).contains("\u{1B}["))
        let json = try r.json()
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(object["user_id"] as? String, "c")
        XCTAssertEqual(object["flow"] as? String, "mini")
        XCTAssertEqual(object["state"] as? String, "abandoned")
        XCTAssertEqual(object["current_step"] as? String, "medication")
        let list = try XCTUnwrap(object["events"] as? [[String: Any]])
        XCTAssertEqual(list.map { $0["event_id"] as? String }, ["c-1", "c-2", "c-3", "c-4", "c-5", "c-6"])
        XCTAssertEqual(list[4]["step"] as? String, "medication")
        XCTAssertNotNil(list[0]["ts"] as? String)
    }
}
