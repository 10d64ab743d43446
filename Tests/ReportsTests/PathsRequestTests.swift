import XCTest
import Foundation
import FunnelModel
import Flows
import Journeys
@testable import Reports

/// `funnel paths` on every seed flow's sample data: the same bytes in every format from every
/// source `JourneySourceReportsTests` reads (the SQLite store, folds of its log in its order
/// and shuffled, the in-memory backend), and real figures of the GLP-1 logs.
final class PathsRequestTests: XCTestCase {
    static let now = JourneySourceReportsTests.now

    func outputs(_ request: PathsRequest, _ source: any JourneySource) throws -> [String: String] {
        let paths = try request.run(source: source, definitions: Flows.builtIn, now: Self.now)
        return ["text": paths.text(), "json": try paths.json(), "csv": paths.csv(), "markdown": paths.markdown(),
                "html": paths.html(command: "funnel paths")]
    }

    /// What every source prints for `request` (asserted the same).
    func sameOutputs(_ request: PathsRequest, _ label: String) throws -> [String: String] {
        var expected: [String: String]?
        for (name, source) in try JourneySourceReportsTests.sources.get() {
            let got = try outputs(request, source)
            if let expected {
                for (what, text) in got where text != expected[what] {
                    XCTFail("\(label): \(name) prints another \(what) than the EventStore")
                }
            } else {
                expected = got
            }
        }
        return expected ?? [:]
    }

    func testEverySeedFlowsPathsAreTheSameFromEverySource() throws {
        for flow in JourneySourceReportsTests.flows {
            let all = try sameOutputs(PathsRequest(selection: ReportRequest(flow: flow)), flow)
            XCTAssertTrue(all["text"]?.contains("as of 2026-10-08T11:31:42.721Z") == true, flow)
            for line in (all["text"] ?? "").split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 80, "\(flow): \(line)") }
            _ = try sameOutputs(PathsRequest(selection: ReportRequest(flow: flow, idle: "1h", asOf: "2026-10-05T12:00:00Z")),
                                "\(flow) idle 1h, as of")
        }
    }

    /// From the journeys' report facts (what `run` reads when they can answer) and from the
    /// log, each user folded from their events: the same bytes in every format on every
    /// source, at idle windows of a day, an hour and the shortest the facts keep, as of a time
    /// that cuts journeys, for a cohort and a window, with the time between two steps.
    func testFactsAndTheLogGiveTheSamePaths() throws {
        func pages(_ paths: PathsReport) throws -> [String] {
            [paths.text(), try paths.json(), paths.csv(), paths.markdown(), paths.html(command: "funnel paths")]
        }
        let requests = [
            PathsRequest(selection: ReportRequest(flow: "glp1"), from: "height", to: "activityLevel"),
            PathsRequest(selection: ReportRequest(flow: "glp1", idle: "1h")),
            PathsRequest(selection: ReportRequest(flow: "glp1", idle: "10m", asOf: "2026-10-05T12:00:00Z")),
            PathsRequest(selection: ReportRequest(flow: "glp1", cohort: "glp1", since: "2026-10-03", idle: "2h")),
        ] + JourneySourceReportsTests.flows.map { PathsRequest(selection: ReportRequest(flow: $0, idle: "1h")) }
        var returns = 0
        for (name, source) in try JourneySourceReportsTests.sources.get() {
            for request in requests {
                let (definition, query) = try request.selection.resolve(in: source, definitions: Flows.builtIn, now: Self.now)
                let blank = PathsTally(definition: definition, query: query, between: try request.between(in: definition))
                XCTAssertTrue(blank.acceptsFacts, "\(name) \(request.selection)")
                let fromFacts = try request.run(source: source, definitions: Flows.builtIn, now: Self.now)
                let fromLog = try request.fromLog(source: source, definition: definition, query: query, into: blank) { _ in }
                XCTAssertEqual(fromFacts, fromLog, "\(name) \(request.selection)")
                XCTAssertEqual(try pages(fromFacts), try pages(fromLog), "\(name) \(request.selection)")
                returns += fromFacts.returns.count
            }
        }
        XCTAssertGreaterThan(returns, 0)
        // Shorter idle windows than the facts keep, and `--where`, read the log.
        let source = try XCTUnwrap(try JourneySourceReportsTests.sources.get().first?.source)
        for selection in [ReportRequest(flow: "glp1", idle: "9m"), ReportRequest(flow: "glp1", filters: ["weightGoal=lose"])] {
            let (definition, query) = try selection.resolve(in: source, definitions: Flows.builtIn, now: Self.now)
            XCTAssertFalse(PathsTally(definition: definition, query: query, between: nil).acceptsFacts, "\(selection)")
        }
    }

    func testGLP1Figures() throws {
        let source = try XCTUnwrap(try JourneySourceReportsTests.sources.get().first?.source)
        let request = PathsRequest(selection: ReportRequest(flow: "glp1"), from: "height", to: "activityLevel")
        let paths = try request.run(source: source, definitions: Flows.builtIn, now: Self.now)
        // The report's started users; each of them viewed a step.
        XCTAssertEqual(paths.users.started, 393)
        XCTAssertEqual(paths.users.viewed, 393)
        XCTAssertEqual(paths.users.moved, 360)
        let back = try XCTUnwrap(paths.transitions.first { $0.from == "birthdayPicker" && $0.to == "genderSelection" })
        XCTAssertEqual(back.kind, .back)
        XCTAssertEqual(back.users, 20)
        XCTAssertEqual(paths.exits.map(\.users).reduce(0, +), 393)
        XCTAssertEqual(paths.exits.first { $0.step == "completion" }?.completed, 187)
        let between = try XCTUnwrap(paths.timeBetween)
        XCTAssertEqual(between.users, 296)
        XCTAssertEqual(try XCTUnwrap(between.p50), 85.9035, accuracy: 1e-9)
        XCTAssertEqual(between.histogram.map(\.users).reduce(0, +), 296)
        // Every started user's moves out of a step are counted among the step's movers.
        for t in paths.transitions {
            XCTAssertLessThanOrEqual(t.users, paths.movedOn(t.from), "\(t)")
            XCTAssertLessThanOrEqual(t.users, t.moves, "\(t)")
        }
    }

    func testBadStepsAreRefusedBeforeTheStoreIsRead() {
        let definitions = Flows.builtIn
        let cases: [(PathsRequest, String)] = [
            (PathsRequest(selection: ReportRequest(flow: "glp1"), from: "height"), "--from needs --to"),
            (PathsRequest(selection: ReportRequest(flow: "glp1"), to: "height"), "--to needs --from"),
            (PathsRequest(selection: ReportRequest(flow: "glp1"), from: "height", to: "height"), "--from and --to are both height"),
            (PathsRequest(selection: ReportRequest(flow: "glp1"), from: "hieght", to: "weight"), "--from hieght: flow glp1 has no step \"hieght\""),
        ]
        for (request, message) in cases {
            XCTAssertThrowsError(try request.validate(definitions: definitions)) { XCTAssertTrue("\($0)".hasPrefix(message), "\($0)") }
        }
    }
}
