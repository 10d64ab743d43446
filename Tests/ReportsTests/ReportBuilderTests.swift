import XCTest
import TestSupport
import Foundation
import FunnelModel
import Projections
@testable import Reports
import Journeys

let reportStart = Timestamp(micros: 1_790_000_000_000_000)

/// An event of the mini flow `minute` minutes after `reportStart`.
func recorded(_ user: String, _ minute: Double, _ name: String, _ step: String?, _ props: [String: JSONValue] = [:],
              flags: [String: JSONValue] = [:], seq: Int64) -> RecordedEvent {
    RecordedEvent(seq: seq, event: Event(id: "\(user)-\(seq)", name: name, userID: user,
                                         time: reportStart.adding(seconds: minute * 60), flow: "mini", step: step,
                                         properties: props, context: EventContext(appVersion: "3.3.0", flags: flags)),
                  line: "{}")
}

final class ReportBuilderTests: XCTestCase {
    let start = reportStart

    func event(_ user: String, _ minute: Double, _ name: String, _ step: String?, _ props: [String: JSONValue] = [:],
               flags: [String: JSONValue] = [:], seq: Int64) -> RecordedEvent {
        recorded(user, minute, name, step, props, flags: flags, seq: seq)
    }

    /// Four users on the mini flow: a maintain explorer who completes in 5 min, a glp1 user who
    /// completes in 10 min, a glp1 user who drops at goalWeight, one who never answers.
    func journeys() -> [Journey] {
        var seq: Int64 = 0
        func next() -> Int64 { seq += 1; return seq }
        var all: [[RecordedEvent]] = []
        all.append([
            event("a", 0, "onboarding.started", "signIn", seq: next()),
            event("a", 0, "onboarding.step_viewed", "signIn", seq: next()),
            event("a", 1, "onboarding.step_viewed", "journeyStatus", seq: next()),
            event("a", 2, "onboarding.step_completed", "journeyStatus", ["journeyStatus": .string("about_to_start")], seq: next()),
            event("a", 2, "onboarding.step_viewed", "weightGoal", seq: next()),
            event("a", 3, "onboarding.step_completed", "weightGoal", ["weightGoal": .string("maintain")], seq: next()),
            event("a", 4, "onboarding.step_viewed", "planPreview", seq: next()),
            event("a", 5, "onboarding.completed", "planPreview", seq: next()),
        ])
        all.append([
            event("b", 0, "onboarding.started", "signIn", seq: next()),
            event("b", 0, "onboarding.step_viewed", "signIn", seq: next()),
            event("b", 1, "onboarding.step_viewed", "journeyStatus", seq: next()),
            event("b", 2, "onboarding.step_completed", "journeyStatus", ["journeyStatus": .string("already_on_glp1")], seq: next()),
            event("b", 2, "onboarding.step_viewed", "medication", seq: next()),
            event("b", 3, "onboarding.step_viewed", "weightGoal", seq: next()),
            event("b", 4, "onboarding.step_completed", "weightGoal", ["weightGoal": .string("lose")], seq: next()),
            event("b", 4, "onboarding.step_viewed", "goalWeight", seq: next()),
            event("b", 6, "onboarding.step_viewed", "planPreview", seq: next()),
            event("b", 8, "onboarding.step_viewed", "completion", seq: next()),
            event("b", 10, "onboarding.completed", "completion", seq: next()),
        ])
        all.append([
            event("c", 0, "onboarding.started", "signIn", seq: next()),
            event("c", 0, "onboarding.step_viewed", "signIn", seq: next()),
            event("c", 1, "onboarding.step_viewed", "journeyStatus", seq: next()),
            event("c", 2, "onboarding.step_completed", "journeyStatus", ["journeyStatus": .string("already_on_glp1")], seq: next()),
            event("c", 2, "onboarding.step_viewed", "medication", seq: next()),
            event("c", 3, "onboarding.step_viewed", "weightGoal", seq: next()),
            event("c", 4, "onboarding.step_completed", "weightGoal", ["weightGoal": .string("gain")], seq: next()),
            event("c", 4, "onboarding.step_viewed", "goalWeight", seq: next()),
        ])
        all.append([
            event("d", 0, "onboarding.started", "signIn", seq: next()),
            event("d", 0, "onboarding.step_viewed", "signIn", seq: next()),
            event("d", 1, "onboarding.step_viewed", "journeyStatus", seq: next()),
        ])
        // Never started: not counted anywhere.
        all.append([event("e", 0, "onboarding.step_viewed", "signIn", seq: next())])
        return all.compactMap { JourneyFold.journey(of: $0, definition: miniFlow) }
    }

    func testWholeFlowFigures() throws {
        let asOf = start.adding(seconds: 3 * 86_400)
        let r = ReportBuilder(definition: miniFlow).report(journeys(), query: ReportQuery(asOf: asOf))
        XCTAssertEqual(r.users.started, 4)
        XCTAssertEqual(r.users.completed, 2)
        XCTAssertEqual(r.users.abandoned, 2)
        XCTAssertEqual(r.users.inProgress, 0)
        XCTAssertEqual(r.completionRate, 0.5)
        XCTAssertEqual(r.timeToCompleteSeconds.p50, 450)
        XCTAssertEqual(r.timeToCompleteSeconds.count, 2)
        func row(_ step: String, _ lane: String?) throws -> FunnelReport.StepRow {
            try XCTUnwrap(r.steps.first { $0.step == step && $0.lane == lane }, "\(step) \(lane ?? "shared")")
        }
        XCTAssertEqual(try row("welcome", nil).tracked, false)
        XCTAssertEqual(try row("journeyStatus", nil).reached, 4)
        XCTAssertEqual(try row("journeyStatus", nil).dropped, 1)
        XCTAssertEqual(try row("goalWeight", "explorers").skipped, 1)
        XCTAssertEqual(try row("goalWeight", "explorers").eligible, 0)
        XCTAssertEqual(try row("goalWeight", "explorers").dropped, 0)
        XCTAssertEqual(try row("goalWeight", "glp1").eligible, 2)
        XCTAssertEqual(try row("goalWeight", "glp1").reached, 2)
        XCTAssertEqual(try row("goalWeight", "glp1").dropped, 1)
        // trackingStyle is skipped (flag off), so planPreview follows goalWeight: b and c reached
        // goalWeight, only b went on.
        XCTAssertEqual(try row("planPreview", "glp1").eligible, 2)
        XCTAssertEqual(try row("planPreview", "glp1").conversionFromEligible, 0.5)
        XCTAssertEqual(try row("trackingStyle", "glp1").skipped, 2)
        XCTAssertEqual(try row("medication", "glp1").conversionFromPrevious, 1)
        XCTAssertEqual(r.topDropoffs.map(\.step), ["goalWeight", "journeyStatus"].sorted())
    }

    func testCohortAndBy() throws {
        let asOf = start.adding(seconds: 3 * 86_400)
        let defn = miniFlow
        let glp1 = try XCTUnwrap(defn.cohort("glp1"))
        let r = ReportBuilder(definition: defn).report(journeys(), query: ReportQuery(cohort: glp1, asOf: asOf))
        XCTAssertEqual(r.cohort, "glp1")
        XCTAssertEqual(r.users.started, 2)
        XCTAssertEqual(r.users.completed, 1)
        let byCohort = ReportBuilder(definition: defn).report(journeys(), query: ReportQuery(asOf: asOf, by: .cohort))
        XCTAssertEqual(byCohort.groups?.map(\.value), ["glp1", "explorers", "(none)"])
        XCTAssertEqual(byCohort.groups?.map(\.report.users.started), [2, 1, 1])
        let json = try byCohort.json()
        XCTAssertTrue(json.contains("\"in_progress\" : 0"))
        XCTAssertTrue(json.contains("\"completion_rate\" : 0.5"))
    }

    func testIdleWindowAndAsOf() {
        let early = start.adding(seconds: 7 * 60)
        let r = ReportBuilder(definition: miniFlow).report(journeys(), query: ReportQuery(asOf: early, idleSeconds: 86_400))
        // at minute 7: a completed; b in progress; c, d in progress (idle 24 h)
        XCTAssertEqual(r.users.completed, 1)
        XCTAssertEqual(r.users.inProgress, 3)
    }

    func testRenderersFitAndAgree() throws {
        let asOf = start.adding(seconds: 3 * 86_400)
        let r = ReportBuilder(definition: miniFlow).report(journeys(), query: ReportQuery(asOf: asOf))
        let text = r.text()
        for line in text.split(separator: "\n") {
            XCTAssertLessThanOrEqual(line.count, 80, "too wide: \(line)")
        }
        XCTAssertTrue(text.contains("goalWeight*"))
        let csv = r.csv().split(separator: "\n")
        let drift = r.drift ?? []
        XCTAssertEqual(csv.count, 1 + r.steps.count + drift.count)
        XCTAssertEqual(csv.filter { $0.hasPrefix("drift,") }.map { String($0.split(separator: ",", omittingEmptySubsequences: false)[3]) }, drift.map(\.kind))
        XCTAssertTrue(csv[0].hasPrefix("group,lane,step"))
        let md = r.markdown()
        XCTAssertTrue(md.contains("| glp1 | `goalWeight` | `weightGoal != maintain` | 2 | 2 | 0 | 1 |"), md)
    }

    func testTimeBuckets() {
        // A week is named by its Monday (UTC), across a year's end and before 1970 too.
        let week = ReportQuery.Dimension.week
        XCTAssertEqual(week.bucket(Timestamp.parse("2026-01-01T10:00:00Z") ?? start), "2025-12-29")
        XCTAssertEqual(week.bucket(Timestamp.parse("2027-01-03T23:59:59Z") ?? start), "2026-12-28")
        XCTAssertEqual(week.bucket(Timestamp.parse("2026-10-05T00:00:00Z") ?? start), "2026-10-05")
        XCTAssertEqual(week.bucket(Timestamp.parse("1969-12-31T12:00:00Z") ?? start), "1969-12-29")
        XCTAssertEqual(ReportQuery.Dimension.day.bucket(Timestamp.parse("2026-10-05T23:59:59.999-02:00") ?? start), "2026-10-06")
    }
}
