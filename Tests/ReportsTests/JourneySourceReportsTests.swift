import XCTest
import Foundation
import FunnelModel
import LogFiles
import EventStore
import Flows
import Projections
import TestSupport
import StoreCore
@testable import Reports
import Journeys

/// Reports read journeys through `JourneySource`: on every seed flow's sample data, the
/// report in every format, its warnings, the users list and an explanation are the same bytes
/// from the SQLite projection, from `FoldedJourneys` over the log, from `FoldedJourneys`
/// over the log with its users handed out reversed or shuffled, and from `FoldedJourneys`
/// over the in-memory backend (`MemoryStore`) the same logs were ingested into.
final class JourneySourceReportsTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let flows = ["glp1", "baby-basics", "screentime-rewards", "shieldai", "trendy"]
    /// After every event: as-of is the store's latest event time.
    static let now = Timestamp(micros: Int64.max / 2)

    /// Every seed flow's sample data in one store, as `scripts/gen-reports` leaves it.
    static let store: Result<EventStore, any Error> = Result { try sampleStore(flows) }

    /// These flows' sample data in a new store, ingested with the projection as the CLI does.
    static func sampleStore(_ flows: [String]) throws -> EventStore {
        let path = Scratch.directory("funnel-sources").appendingPathComponent("store.sqlite").path
        let store = try EventStore(path: path, migrations: ProjectionStore.migrations)
        let ingestor = Ingestor(store: store, options: IngestOptions(flows: Flows.builtIn),
                                observer: ProjectionUpdater(definitions: Flows.builtIn))
        _ = try ingestor.ingest(try InputSource.discover(flows.map { root.appendingPathComponent("sample-data/\($0)").path }))
        return store
    }

    /// The same sample data in the in-memory backend, through the one ingest driver.
    static func sampleMemoryStore(_ flows: [String]) throws -> MemoryStore {
        let store = MemoryStore(options: IngestOptions(flows: Flows.builtIn))
        _ = try store.ingest(try InputSource.discover(flows.map { root.appendingPathComponent("sample-data/\($0)").path }))
        return store
    }

    /// The projection, folds of the log in its order and with its users shuffled, and folds
    /// of the in-memory backend's log.
    static let sources: Result<[(name: String, source: any JourneySource)], any Error> = Result {
        let store = try JourneySourceReportsTests.store.get()
        return [("EventStore", store), ("FoldedJourneys", FoldedJourneys(log: store)),
                ("FoldedJourneys shuffled", FoldedJourneys(log: try ReorderedLog(store, .shuffled(seed: 42)))),
                ("FoldedJourneys over MemoryStore", FoldedJourneys(log: try sampleMemoryStore(flows)))]
    }

    /// What the commands print for `request` from `source`, by what it is: the report in
    /// every format (the HTML with its explanations), its warnings, the users list and the
    /// explanation of the top drop-off.
    func outputs(_ request: ReportRequest, _ source: any JourneySource) throws -> [(String, String)] {
        let definitions = Flows.builtIn
        var report = try request.run(source: source, definitions: definitions, now: Self.now)
        report.explanations = try request.explanations(of: report, source: source, definitions: definitions, now: Self.now)
        var out = [("text", report.text()), ("json", try report.json()), ("csv", report.csv()), ("markdown", report.markdown()),
                   ("html", report.html(command: "funnel report", generatedAt: nil)),
                   ("warnings", try request.warnings(for: report, source: source, definitions: definitions, now: Self.now)
                       .joined(separator: "\n"))]
        let users = try request.users(source: source, definitions: definitions, now: Self.now, state: nil, step: nil)
        out += [("users text", users.text()), ("users json", try users.json()), ("users csv", users.csv())]
        guard let top = report.topDropoffs.first else { return out + [("explain", "no drop-off")] }
        let definition = try XCTUnwrap(definitions.first { $0.id == report.flow })
        let explain = ExplainRequest(selection: request, step: top.step, lane: definition.lanes.count == 1 ? nil : top.lane)
        do {
            let explanation = try explain.run(source: source, definitions: definitions, now: Self.now)
            out += [("explain text", explanation.text()), ("explain json", try explanation.json()),
                    ("explain markdown", explanation.markdown())]
        } catch let e as RequestError {
            out.append(("explain", e.message))
        }
        return out
    }

    /// Asserts every source prints the same bytes for `request`; returns what they print.
    @discardableResult
    func assertSameOutputs(_ request: ReportRequest, _ label: String) throws -> [String: String] {
        var expected: [(String, String)]?
        for (name, source) in try Self.sources.get() {
            let got = try outputs(request, source)
            if let expected {
                XCTAssertEqual(got.map(\.0), expected.map(\.0), "\(label): \(name)")
                for ((what, text), (_, want)) in zip(got, expected) where text != want {
                    let line = zip(text.split(separator: "\n"), want.split(separator: "\n")).first { $0 != $1 }
                    XCTFail("\(label): \(name) prints another \(what) than the EventStore: \(line.map { "\($0.0)\nagainst\n\($0.1)" } ?? "")")
                }
            } else {
                expected = got
            }
        }
        return Dictionary(expected ?? [], uniquingKeysWith: { a, _ in a })
    }

    func testEverySeedFlowsReportsAreTheSameFromEverySource() throws {
        for flow in Self.flows {
            let all = try assertSameOutputs(ReportRequest(flow: flow, by: "cohort"), flow)
            XCTAssertTrue(all["text"]?.contains("as of 2026-10-08T11:31:42.721Z") == true, flow)
            // As of a time that cuts journeys and leaves out those that had not begun.
            let early = try assertSameOutputs(ReportRequest(flow: flow, by: "app_version", since: "2026-10-02", until: "2026-10-05",
                                                            asOf: "2026-10-04T06:00:00Z"), "\(flow) window, as of")
            XCTAssertTrue(early["text"]?.contains("as of 2026-10-04T06:00:00.000Z") == true, early["text"] ?? "")
            XCTAssertNotEqual(early["users csv"], all["users csv"], flow)
        }
    }

    func testGLP1SelectionsAreTheSameFromEverySource() throws {
        // The README's report: the example in reports/, byte for byte.
        let cohort = try assertSameOutputs(ReportRequest(flow: "glp1", cohort: "glp1"), "glp1 --cohort glp1")
        let reports = Self.root.appendingPathComponent("reports")
        XCTAssertEqual(cohort["text"], try String(contentsOf: reports.appendingPathComponent("glp1-cohort-glp1.txt"), encoding: .utf8))
        XCTAssertEqual(cohort["markdown"], try String(contentsOf: reports.appendingPathComponent("glp1-cohort-glp1.md"), encoding: .utf8))
        XCTAssertTrue(cohort["text"]?.contains("users    started 173 · completed 117 · in progress 4 · abandoned 52") == true)
        // Cohort, ad hoc filter, window and breakdown, as of a time that cuts journeys.
        let selection = ReportRequest(flow: "glp1", cohort: "glp1", filters: ["weightGoal=lose"], by: "app_version",
                                      since: "2026-10-02", until: "2026-10-07", asOf: "2026-10-06T12:00:00Z")
        let selected = try assertSameOutputs(selection, "glp1 selection")
        let json = try XCTUnwrap(selected["json"]?.data(using: .utf8))
        let users = try XCTUnwrap((try JSONSerialization.jsonObject(with: json) as? [String: Any])?["users"] as? [String: Any])
        let started = try XCTUnwrap(users["started"] as? Int)
        XCTAssertGreaterThan(started, 10)
        XCTAssertLessThan(started, 173)
        XCTAssertEqual(selected["users csv"]?.split(separator: "\n").count, started + 1)
        // Two lanes' drop-offs on one step (healthKitBenefits), each explained; by day.
        let gain = try assertSameOutputs(ReportRequest(flow: "glp1", filters: ["weightGoal=gain"], by: "day"), "glp1 gain")
        XCTAssertTrue(gain["html"]?.contains(#"<article class="explained" data-step="healthKitBenefits" data-lane="glp1">"#) == true)
        XCTAssertTrue(gain["html"]?.contains(#"<article class="explained" data-step="healthKitBenefits" data-lane="explorers">"#) == true)
        // Two breakdowns at once (platform reads whole journeys, week the facts), and period against period.
        let pairs = try assertSameOutputs(ReportRequest(flow: "glp1", by: "platform", alsoBy: ["week"]), "glp1 platform × week")
        XCTAssertTrue(pairs["json"]?.contains("\"by\" : \"platform,week\"") == true, pairs["json"] ?? "")
        let compared = try assertSameOutputs(ReportRequest(flow: "glp1", cohort: "glp1", since: "2026-10-04", until: "2026-10-08",
                                                           compare: "previous"), "glp1 --compare previous")
        XCTAssertTrue(compared["json"]?.contains("\"completion_difference\" : {") == true, compared["json"] ?? "")
        // A filter that matches nobody: the warning names the values there are, from every source alike.
        let nobody = try assertSameOutputs(ReportRequest(flow: "glp1", filters: ["weeklyPaceKg=99"], by: "flag:trackingStyleQuestion"),
                                           "glp1 nobody")
        XCTAssertTrue(nobody["warnings"]?.contains("--where weeklyPaceKg=99 matches none of the 393 users") == true,
                      nobody["warnings"] ?? "")
        // A value neither the definition nor the logs know: the same error from every source.
        for (name, source) in try Self.sources.get() {
            XCTAssertThrowsError(try ReportRequest(flow: "glp1", filters: ["weightGoal=none"]).run(source: source, definitions: Flows.builtIn, now: Self.now),
                                 name) { XCTAssertTrue("\($0)".hasPrefix("--where \"weightGoal=none\": flow glp1 has no weightGoal value \"none\""), "\(name): \($0)") }
        }
    }
}
