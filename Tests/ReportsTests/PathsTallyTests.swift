import XCTest
import FunnelModel
import Journeys
import TestSupport
@testable import Reports

/// `PathsTally` on hand-made journeys of the mini flow, every figure worked out by hand.
final class PathsTallyTests: XCTestCase {
    /// a: glp1 lane, goes back once, repeats a view, skips goalWeight, completes.
    /// b: explorers lane, views goalWeight off its path, leaves for 30 h, comes back, abandons.
    /// c: leaves signIn for 4000 min, comes back to it, in progress at as-of.
    /// d: never started: not counted.
    func events() -> [[RecordedEvent]] {
        var seq: Int64 = 0
        func e(_ user: String, _ minute: Double, _ name: String, _ step: String?, _ props: [String: JSONValue] = [:]) -> RecordedEvent {
            seq += 1
            return recorded(user, minute, name, step, props, seq: seq)
        }
        let a = [
            e("a", 0, "onboarding.started", "signIn"), e("a", 0, "onboarding.step_viewed", "signIn"),
            e("a", 1, "onboarding.step_viewed", "journeyStatus"),
            e("a", 2, "onboarding.step_completed", "journeyStatus", ["journeyStatus": .string("already_on_glp1")]),
            e("a", 2, "onboarding.step_viewed", "medication"), e("a", 3, "onboarding.step_viewed", "journeyStatus"),
            e("a", 4, "onboarding.step_viewed", "medication"), e("a", 4.5, "onboarding.step_viewed", "medication"),
            e("a", 5, "onboarding.step_viewed", "weightGoal"),
            e("a", 6, "onboarding.step_completed", "weightGoal", ["weightGoal": .string("lose")]),
            e("a", 6, "onboarding.step_viewed", "planPreview"), e("a", 7, "onboarding.step_viewed", "completion"),
            e("a", 8, "onboarding.completed", "completion"),
        ]
        let b = [
            e("b", 0, "onboarding.started", "signIn"), e("b", 0, "onboarding.step_viewed", "signIn"),
            e("b", 1, "onboarding.step_viewed", "journeyStatus"),
            e("b", 2, "onboarding.step_completed", "journeyStatus", ["journeyStatus": .string("about_to_start")]),
            e("b", 2, "onboarding.step_viewed", "weightGoal"),
            e("b", 3, "onboarding.step_completed", "weightGoal", ["weightGoal": .string("maintain")]),
            e("b", 4, "onboarding.step_viewed", "goalWeight"), e("b", 1804, "onboarding.step_viewed", "weightGoal"),
            e("b", 1805, "onboarding.step_completed", "weightGoal", ["weightGoal": .string("maintain")]),
        ]
        let c = [
            e("c", 0, "onboarding.started", "signIn"), e("c", 0, "onboarding.step_viewed", "signIn"),
            e("c", 4000, "onboarding.step_viewed", "signIn"), e("c", 4001, "onboarding.step_viewed", "journeyStatus"),
        ]
        let d = [e("d", 10, "onboarding.step_viewed", "signIn"), e("d", 11, "onboarding.step_viewed", "journeyStatus")]
        // Out of fold order, as a log may hand them out: the tally puts them in order.
        return [a.reversed(), b, c.shuffled(), d]
    }

    func report(between: (from: String, to: String)? = nil, asOf: Timestamp = reportStart.adding(seconds: 4001 * 60)) -> PathsReport {
        var tally = PathsTally(definition: miniFlow, query: ReportQuery(asOf: asOf), between: between)
        let folder = FlowFolder(miniFlow)
        for user in events() {
            guard let journey = folder.journey(of: user, until: asOf) else { continue }
            tally.add(journey, events: user)
        }
        return tally.report()
    }

    func testMovesAndTheirKinds() {
        let r = report()
        XCTAssertEqual(r.users, .init(started: 3, viewed: 3, moved: 3))
        let moves = r.transitions.map { "\($0.from)>\($0.to) \($0.kind.rawValue) \($0.users)/\($0.moves)" }
        XCTAssertEqual(moves, [
            "signIn>journeyStatus forward 3/3",
            "journeyStatus>medication forward 1/2", "journeyStatus>weightGoal forward 1/1",
            "medication>journeyStatus back 1/1", "medication>weightGoal forward 1/1",
            "weightGoal>goalWeight off_path 1/1", "weightGoal>planPreview skip 1/1",
            "goalWeight>weightGoal off_path 1/1",
            "planPreview>completion forward 1/1",
        ])
        XCTAssertEqual(r.steps.map { "\($0.step) \($0.users)/\($0.movedOn)" }, [
            "signIn 3/3", "journeyStatus 3/2", "medication 1/1", "weightGoal 2/2", "goalWeight 1/1",
            "planPreview 1/1", "completion 1/0",
        ])
        XCTAssertEqual(r.findings.map(\.kind), [.back, .offPath, .skip, .offPath])
    }

    func testExitsAndWhatTheAbandonedDidLast() throws {
        let r = report()
        XCTAssertEqual(r.exits.map { "\($0.step) \($0.completed)/\($0.inProgress)/\($0.abandoned)" },
                       ["journeyStatus 0/1/0", "weightGoal 0/0/1", "completion 1/0/0"])
        let weightGoal = try XCTUnwrap(r.exits.first { $0.step == "weightGoal" })
        XCTAssertEqual(weightGoal.abandonedLastEvents.map(\.text), ["step_completed weightGoal=maintain"])
        XCTAssertEqual(weightGoal.abandonedLastEvents.first?.share, 1)
    }

    func testReturnsAfterTheIdleWindow() {
        let r = report()
        XCTAssertEqual(r.returns.map(\.step), ["signIn", "goalWeight"])
        XCTAssertEqual(r.returns.map(\.users), [1, 1])
        XCTAssertEqual(r.returns[0].cameBack, ["same": 1, "first": 0, "earlier": 0, "later": 0, "off_path": 0])
        XCTAssertEqual(r.returns[1].cameBack, ["same": 0, "first": 0, "earlier": 0, "later": 0, "off_path": 1])
    }

    func testTimeBetweenTwoSteps() throws {
        let b = try XCTUnwrap(report(between: ("journeyStatus", "weightGoal")).timeBetween)
        // a: 1 min → 5 min; b: 1 min → 2 min; c never viewed weightGoal.
        XCTAssertEqual(b.users, 2)
        XCTAssertEqual(b.p50, 150)
        XCTAssertEqual(b.p75, 195)
        XCTAssertEqual(b.mean, 150)
        XCTAssertEqual(b.histogram.map(\.users).reduce(0, +), 2)
        // The first view of `to` after the first view of `from`: a came back to journeyStatus later.
        XCTAssertEqual(report(between: ("medication", "journeyStatus")).timeBetween?.p50, 60)
        XCTAssertEqual(report(between: ("completion", "signIn")).timeBetween?.users, 0)
    }

    func testEveryAdjacentPairOfTheLanes() {
        let r = report()
        // c's first view of journeyStatus came 4001 min after signIn.
        XCTAssertEqual(r.adjacentPairs.map { "\($0.from)>\($0.to) \($0.users) \($0.p50 ?? -1)" }, [
            "signIn>journeyStatus 3 60.0", "journeyStatus>weightGoal 2 150.0", "weightGoal>goalWeight 1 120.0",
            "planPreview>completion 1 60.0", "journeyStatus>medication 1 60.0", "medication>weightGoal 1 180.0",
        ])
        XCTAssertEqual(r.adjacentPairs.first?.mean, (60 + 60 + 240_060) / 3)
        XCTAssertEqual(r.slowestPairs.prefix(3).map(\.from), ["medication", "journeyStatus", "weightGoal"])
        XCTAssertTrue(r.text().contains("\n  medication → weightGoal"), r.text())
    }

    /// The report's adjacent pairs are the paths' own: from the journeys and from their facts
    /// (through their bytes), as of the last event and as of an earlier time (journeys
    /// folded through every event: views after as-of left out).
    func testTheReportsAdjacentPairsAreThePaths() throws {
        let folder = FlowFolder(miniFlow)
        let journeys = events().compactMap { folder.journey(of: $0, until: nil) }
        var slots: [String: Int] = [:]
        for (i, step) in JourneyFacts.slots(miniFlow).enumerated() { slots[step] = i }
        let facts = try journeys.map { j in
            try JourneyFacts(j, definition: miniFlow, slots: slots).binary().withUnsafeBytes { try JourneyFacts(binary: $0) }
        }
        let builder = ReportBuilder(definition: miniFlow)
        for minutes in [4001.0, 3000] {
            let asOf = reportStart.adding(seconds: minutes * 60)
            let paths = report(asOf: asOf).adjacentPairs
            XCTAssertEqual(builder.report(journeys, query: ReportQuery(asOf: asOf)).adjacentPairs, paths, "\(minutes)")
            var fromFacts = ReportAccumulator(builder: builder, query: ReportQuery(asOf: asOf))
            for f in facts { fromFacts.add(f) }
            XCTAssertEqual(fromFacts.report().adjacentPairs, paths, "\(minutes)")
        }
        // Before c came back to journeyStatus, only a and b had made that move.
        XCTAssertEqual(report(asOf: reportStart.adding(seconds: 3000 * 60)).adjacentPairs.first?.users, 2)
        // The text shows the three slowest under the step table, at 80 columns.
        let text = builder.report(journeys, query: ReportQuery(asOf: reportStart.adding(seconds: 4001 * 60))).text()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let title = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("slowest steps to the next on a lane") }, text)
        XCTAssertEqual(lines[(title + 2)...(title + 4)].map { $0.split(separator: " ").prefix(3).joined(separator: " ") },
                       ["medication → weightGoal", "journeyStatus → weightGoal", "weightGoal → goalWeight"], text)
        XCTAssertLessThan(title, try XCTUnwrap(lines.firstIndex { $0.hasPrefix("top drop-off points") }), text)
        for line in lines { XCTAssertLessThanOrEqual(line.count, 80, String(line)) }
    }

    func testTextFitsEightyColumnsAndEscapes() throws {
        var r = report(between: ("journeyStatus", "weightGoal"))
        r.transitions[0].to = "evil\u{1B}[2J\u{07}" + String(repeating: "x", count: 90)
        r.exits[0].abandonedLastEvents = [.init(event: "x\u{1B}]0;pwned\u{07}", properties: [:], users: 1, share: 1)]
        let text = r.text()
        for line in text.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 80, String(line)) }
        XCTAssertFalse(text.contains("\u{1B}"))
        XCTAssertTrue(text.contains("evil\\x1B[2J\\x07"))
        XCTAssertTrue(text.contains("moves off the expected path"))
        XCTAssertTrue(text.contains("users 2 · p50 2m 30s"))
    }

    func testASelectionOfNobodySaysSo() throws {
        let asOf = reportStart.adding(seconds: 4001 * 60)
        let query = ReportQuery(filters: [("weightGoal=gain", try Condition(parsing: "weightGoal=gain"))], asOf: asOf)
        var tally = PathsTally(definition: miniFlow, query: query, between: ("signIn", "journeyStatus"))
        let folder = FlowFolder(miniFlow)
        for user in events() {
            if let journey = folder.journey(of: user, until: asOf) { tally.add(journey, events: user) }
        }
        let r = tally.report()
        XCTAssertEqual(r.users, .init(started: 0, viewed: 0, moved: 0))
        XCTAssertEqual(r.timeBetween?.users, 0)
        XCTAssertNil(r.timeBetween?.p50)
        XCTAssertTrue(r.text().contains("\nno moves: nobody in the selection viewed two different steps\n"), r.text())
        XCTAssertTrue(try r.json().contains("\"p50\" : null"))
    }

    func testEventDataIsTextInEveryFormat() {
        var r = report(between: ("journeyStatus", "weightGoal"))
        let img = "<img src=x onerror=\"document.title='pwned'\">"
        r.steps[0].step = img
        r.transitions[0].from = img
        r.transitions[1].to = "=HYPERLINK(\"http://evil.example\")|`x`"
        r.exits[0].step = img
        let html = r.html(command: "funnel paths --flow mini")
        XCTAssertFalse(html.lowercased().contains("<img"))
        XCTAssertTrue(html.contains("&lt;img src=x onerror=&quot;document.title=&#39;pwned&#39;&quot;&gt;"))
        XCTAssertTrue(r.csv().contains("\"'=HYPERLINK(\"\"http://evil.example\"\")|`x`\""), r.csv())
        // In Markdown, names are code spans: shown as the characters they are.
        XCTAssertTrue(r.markdown().contains("| `\(img)` | 1 | 0 | 1 | 0 |"), r.markdown())
    }
}
