import XCTest
import Foundation

/// `funnel report`, `users` and `replay` on the bundled sample data, checked figure by figure
/// against scripts/reference_report.py, an independent plain-Python reading of DESIGN.md.
final class ReportCommandTests: XCTestCase {
    static let flows = ["glp1", "baby-basics", "screentime-rewards", "shieldai", "trendy"]

    func reference(_ args: [String]) throws -> [String: Any] {
        try referenceJSON("reference_report.py", args)
    }

    /// Compares users, time to complete and per-step reached / dropped.
    func assertAgree(_ report: [String: Any], _ ref: [String: Any], _ label: String,
                     file: StaticString = #filePath, line: UInt = #line) throws {
        let users = try XCTUnwrap(report["users"] as? [String: Int], label)
        XCTAssertEqual(users, ref["users"] as? [String: Int], "\(label): users", file: file, line: line)
        XCTAssertGreaterThan(users["started"] ?? 0, 50, "\(label): too few users to mean anything", file: file, line: line)
        let t = try XCTUnwrap(report["time_to_complete_seconds"] as? [String: Any])
        let rt = try XCTUnwrap(ref["time_to_complete_seconds"] as? [String: Any])
        for k in ["p50", "p75", "p90", "p95"] {
            let a = try XCTUnwrap(t[k] as? Double, "\(label) \(k)")
            let b = try XCTUnwrap(rt[k] as? Double, "\(label) \(k) (reference)")
            XCTAssertEqual(a, b, accuracy: 1e-6, "\(label): \(k)", file: file, line: line)
        }
        // Reached and dropped summed over lanes must equal the reference's per step.
        var reached: [String: Int] = [:], dropped: [String: Int] = [:]
        for row in try XCTUnwrap(report["steps"] as? [[String: Any]]) {
            let step = try XCTUnwrap(row["step"] as? String)
            reached[step, default: 0] += row["reached"] as? Int ?? 0
            dropped[step, default: 0] += row["dropped"] as? Int ?? 0
        }
        XCTAssertEqual(reached.filter { $0.value > 0 }, ref["reached"] as? [String: Int], "\(label): reached", file: file, line: line)
        XCTAssertEqual(dropped.filter { $0.value > 0 }, ref["dropped"] as? [String: Int], "\(label): dropped", file: file, line: line)
    }

    func testEveryFlowAgreesWithTheReference() throws {
        for flow in Self.flows {
            let store = tempDir().appendingPathComponent("s.sqlite").path
            let dir = sampleData.appendingPathComponent(flow).path
            let r = try runFunnel(["report", "--flow", flow, "--store", store, "--format", "json", dir])
            XCTAssertEqual(r.status, 0, "\(flow): \(r.stderr)")
            try assertAgree(try jsonObject(r.stdout), try reference(["--flow", flow, dir]), flow)
        }
    }

    /// `--by cohort`: each cohort's counts and its comparison with the rest of the selection
    /// (difference, p-value, adjusted p-value) as the reference computes them from the logs.
    func testSegmentsAgainstTheRestAgreeWithTheReference() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        let dir = sampleData.appendingPathComponent("glp1").path
        let r = try runFunnel(["report", "--flow", "glp1", "--by", "cohort", "--store", store, "--format", "json", dir])
        XCTAssertEqual(r.status, 0, r.stderr)
        let groups = try XCTUnwrap(try jsonObject(r.stdout)["groups"] as? [[String: Any]])
        let ref = try XCTUnwrap(try reference(["--flow", "glp1", "--segment-key", "journeyStatus", "--segment", "glp1=already_on_glp1",
                                               "--segment", "explorers=about_to_start", dir])["segments"] as? [[String: Any]])
        XCTAssertEqual(groups.map { $0["value"] as? String }, ref.map { $0["value"] as? String })
        for (g, e) in zip(groups, ref) {
            let label = g["value"] as? String ?? "?"
            let users = (g["report"] as? [String: Any])?["users"] as? [String: Int]
            XCTAssertEqual(users?["started"], e["started"] as? Int, label)
            XCTAssertEqual(users?["completed"], e["completed"] as? Int, label)
            for key in ["p_value", "p_value_adjusted"] {
                let a = try XCTUnwrap(g[key] as? Double, "\(label) \(key)")
                let b = try XCTUnwrap(e[key] as? Double, "\(label) \(key) (reference)")
                XCTAssertEqual(a / b, 1, accuracy: 1e-9, "\(label) \(key)")
            }
            XCTAssertEqual(try XCTUnwrap(g["difference_from_rest"] as? Double), try XCTUnwrap(e["difference"] as? Double),
                           accuracy: 1e-12, label)
        }
    }

    /// `--by day`: users and completions per UTC day of their first onboarding.started, as
    /// the reference counts them from the logs; the buckets that end less than the idle
    /// window before as-of are unsettled in JSON, text and HTML.
    func testDayBucketsAgreeWithTheReference() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        let dir = sampleData.appendingPathComponent("glp1").path
        let r = try runFunnel(["report", "--flow", "glp1", "--by", "day", "--store", store, "--format", "json", dir])
        XCTAssertEqual(r.status, 0, r.stderr)
        let o = try jsonObject(r.stdout)
        XCTAssertEqual(o["as_of"] as? String, "2026-10-08T11:31:42.721Z")
        let groups = try XCTUnwrap(o["groups"] as? [[String: Any]])
        let days = try XCTUnwrap(try reference(["--flow", "glp1", "--days", dir])["days"] as? [String: [String: Int]])
        XCTAssertEqual(groups.map { $0["value"] as? String ?? "" }, days.keys.sorted())
        for g in groups {
            let users = (g["report"] as? [String: Any])?["users"] as? [String: Int]
            let day = g["value"] as? String ?? ""
            XCTAssertEqual(users?["started"], days[day]?["started"], day)
            XCTAssertEqual(users?["completed"], days[day]?["completed"], day)
        }
        // As of 2026-10-08T11:31Z with 24 h idle: the 7th ended 11.5 h before as-of.
        XCTAssertEqual(groups.map { $0["settled"] as? Bool }, [true, true, true, true, true, true, false, false])
        let hour = try jsonObject(try runFunnel(["report", "--flow", "glp1", "--by", "day", "--idle", "1h", "--store", store,
                                                 "--format", "json"]).stdout)
        XCTAssertEqual((hour["groups"] as? [[String: Any]])?.map { $0["settled"] as? Bool }, [true, true, true, true, true, true, true, false])
        let text = try runFunnel(["report", "--flow", "glp1", "--by", "day", "--store", store]).stdout
        XCTAssertTrue(text.contains("\n2026-10-07~       51        29  56.9%   43.3%–69.5%"), text)
        XCTAssertTrue(text.contains("day = 2026-10-08 (unsettled: its users may still complete)"), text)
        XCTAssertTrue(text.split(separator: "\n").allSatisfy { $0.count <= 80 }, text)
        let html = try runFunnel(["report", "--flow", "glp1", "--by", "day", "--store", store, "--format", "html"]).stdout
        XCTAssertTrue(html.contains("<svg class=\"trendchart\""), "the trend chart")
        XCTAssertEqual(html.components(separatedBy: "class=\"pt unsettled\"").count - 1, 2)
        XCTAssertEqual(html.components(separatedBy: "class=\"pt\"").count - 1, 6)
        // Weeks are named by their Monday.
        let weeks = try jsonObject(try runFunnel(["report", "--flow", "glp1", "--by", "week", "--store", store, "--format", "json"]).stdout)
        XCTAssertEqual((weeks["groups"] as? [[String: Any]])?.map { $0["value"] as? String }, ["2026-09-28", "2026-10-05"])
    }

    func testTheReadmeCommandGLP1Cohort() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        let dir = sampleData.appendingPathComponent("glp1").path
        // As the README types it: text, then the same figures as JSON without --flow.
        let text = try runFunnel(["report", "--flow", "glp1", "--cohort", "glp1", "--store", store, dir])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("cohort glp1"))
        for line in text.stdout.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 80, String(line)) }
        XCTAssertTrue(text.stderr.contains("ingested 9 of 9 inputs") || text.stderr.contains("inputs"), text.stderr)
        let again = try runFunnel(["report", "--cohort", "glp1", "--store", store, "--format", "json", dir])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("already in the store"), again.stderr)
        let json = try jsonObject(again.stdout)
        XCTAssertEqual(json["cohort"] as? String, "glp1")
        XCTAssertEqual(json["flow"] as? String, "glp1")
        try assertAgree(json, try reference(["--flow", "glp1", "--cohort-key", "journeyStatus",
                                             "--cohort-value", "already_on_glp1", dir]), "glp1/glp1")
        // Flow-aware: weightGoal = maintain users are skipped at goalWeight, never dropped there.
        let steps = try XCTUnwrap(json["steps"] as? [[String: Any]])
        let goal = try XCTUnwrap(steps.first { $0["step"] as? String == "goalWeight" && $0["lane"] as? String == "glp1" })
        XCTAssertGreaterThan(goal["skipped"] as? Int ?? 0, 0)
        XCTAssertLessThan(goal["eligible"] as? Int ?? 0, steps.first { $0["step"] as? String == "weightGoal" && $0["lane"] as? String == "glp1" }?["reached"] as? Int ?? 0)
    }

    func testUsersMatchTheDroppedFigure() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        let dir = sampleData.appendingPathComponent("glp1").path
        let r = try runFunnel(["report", "--flow", "glp1", "--store", store, "--format", "json", dir])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try jsonObject(r.stdout)
        let top = try XCTUnwrap((report["top_dropoffs"] as? [[String: Any]])?.first)
        let step = try XCTUnwrap(top["step"] as? String)
        let u = try runFunnel(["users", "--flow", "glp1", "--store", store, "--state", "abandoned", "--step", step, "--format", "json"])
        XCTAssertEqual(u.status, 0, u.stderr)
        let list = try XCTUnwrap(try jsonObject(u.stdout)["users"] as? [[String: Any]])
        let droppedThere = try XCTUnwrap((report["steps"] as? [[String: Any]])?.filter { $0["step"] as? String == step }
            .reduce(0) { $0 + ($1["dropped"] as? Int ?? 0) })
        XCTAssertEqual(list.count, droppedThere)
        XCTAssertTrue(list.allSatisfy { $0["state"] as? String == "abandoned" && $0["current_step"] as? String == step })
        let csv = try runFunnel(["users", "--flow", "glp1", "--store", store, "--state", "abandoned", "--step", step, "--format", "csv"])
        XCTAssertEqual(csv.stdout.split(separator: "\n").count, list.count + 1)
    }

    func testBadArgumentsListWhatExists() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        let dir = sampleData.appendingPathComponent("glp1").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, dir]).status, 0)
        let flow = try runFunnel(["report", "--store", store, "--flow", "glp2"])
        XCTAssertNotEqual(flow.status, 0)
        XCTAssertTrue(flow.stderr.contains("unknown flow \"glp2\"") && flow.stderr.contains("glp1"), flow.stderr)
        let cohort = try runFunnel(["report", "--store", store, "--flow", "glp1", "--cohort", "glp"])
        XCTAssertTrue(cohort.stderr.contains("cohorts: glp1, explorers") || cohort.stderr.contains("cohorts:"), cohort.stderr)
        XCTAssertNotEqual(cohort.status, 0)
        let idle = try runFunnel(["report", "--store", store, "--flow", "glp1", "--idle", "soon"])
        XCTAssertEqual(idle.status, 2)
        XCTAssertTrue(idle.stderr.hasPrefix("funnel report: --idle \"soon\" is not a duration; units: s, m, h, d, w"), idle.stderr)
        let step = try runFunnel(["users", "--store", store, "--flow", "glp1", "--step", "goalWieght"])
        XCTAssertTrue(step.stderr.contains("no step \"goalWieght\"") && step.stderr.contains("goalWeight"), step.stderr)
        let by = try runFunnel(["report", "--store", store, "--flow", "glp1", "--by", "flag:nope"])
        XCTAssertTrue(by.stderr.contains("trackingStyleQuestion"), by.stderr)
        let key = try runFunnel(["report", "--store", store, "--flow", "glp1", "--where", "weightGoals=maintain"])
        XCTAssertTrue(key.stderr.contains("unknown key \"weightGoals\"") && key.stderr.contains("weightGoal"), key.stderr)
    }

    func testByAndWhereAndFormats() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        let dir = sampleData.appendingPathComponent("glp1").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, dir]).status, 0)
        let by = try jsonObject(try runFunnel(["report", "--store", store, "--flow", "glp1", "--by", "cohort", "--format", "json"]).stdout)
        let groups = try XCTUnwrap(by["groups"] as? [[String: Any]])
        let started = groups.map { (($0["report"] as? [String: Any])?["users"] as? [String: Int])?["started"] ?? -1 }
        XCTAssertEqual(groups.map { $0["value"] as? String }, ["glp1", "explorers", "(none)"])
        XCTAssertEqual(started.reduce(0, +), (by["users"] as? [String: Int])?["started"])
        let maintain = try jsonObject(try runFunnel(["report", "--store", store, "--flow", "glp1", "--where", "weightGoal=maintain", "--format", "json"]).stdout)
        let steps = try XCTUnwrap(maintain["steps"] as? [[String: Any]])
        XCTAssertTrue(steps.filter { $0["step"] as? String == "goalWeight" }.allSatisfy { ($0["eligible"] as? Int) == 0 && ($0["reached"] as? Int) == 0 })
        let md = try runFunnel(["report", "--store", store, "--flow", "glp1", "--format", "markdown"])
        XCTAssertTrue(md.stdout.hasPrefix("# Onboarding Tonic"), md.stdout)
        let csv = try runFunnel(["report", "--store", store, "--flow", "glp1", "--format", "csv"])
        XCTAssertTrue(csv.stdout.hasPrefix("group,lane,step"))
        let html = tempDir().appendingPathComponent("r.html")
        let h = try runFunnel(["report", "--store", store, "--flow", "glp1", "--format", "html", "--output", html.path])
        XCTAssertEqual(h.status, 0, h.stderr)
        let page = try String(contentsOf: html, encoding: .utf8)
        XCTAssertTrue(page.contains("<svg") && !page.contains("<script"))
    }
}
