import XCTest
import Foundation

/// `funnel explain` on the bundled sample data: every figure checked against
/// scripts/reference_explain.py, an independent plain-Python reading of docs/explain.md, and
/// the dropped users against the report's drop-off rows.
final class ExplainCommandTests: XCTestCase {
    /// One store per flow, ingested once for the class.
    static let stores: [String: String] = {
        var out: [String: String] = [:]
        for flow in ["glp1", "shieldai", "screentime-rewards", "trendy", "baby-basics"] {
            let path = tempDir().appendingPathComponent("explain-\(flow).sqlite").path
            _ = try? runFunnel(["ingest", "--store", path, sampleData.appendingPathComponent(flow).path])
            out[flow] = path
        }
        return out
    }()

    func explain(_ flow: String, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let r = try runFunnel(["explain", "--store", try XCTUnwrap(Self.stores[flow]), "--flow", flow, "--format", "json"] + args)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        return try jsonObject(r.stdout)
    }

    func reference(_ flow: String, _ args: [String]) throws -> [String: Any] {
        try referenceJSON("reference_explain.py", ["--definition", packageRoot.appendingPathComponent("schemas/flows/\(flow).json").path]
                          + args + [sampleData.appendingPathComponent(flow).path])
    }

    /// Two numbers equal to within `relative` of their size (both nil counts as equal).
    func assertClose(_ a: Any?, _ b: Any?, relative: Double = 1e-9, _ label: String,
                     file: StaticString = #filePath, line: UInt = #line) {
        let x = a as? Double, y = b as? Double
        guard let x, let y else {
            XCTAssertTrue(x == nil && y == nil, "\(label): \(String(describing: a)) against \(String(describing: b))", file: file, line: line)
            return
        }
        XCTAssertEqual(x, y, accuracy: max(abs(y) * relative, 1e-15), label, file: file, line: line)
    }

    /// Users, every attribute value (counts, difference, interval, p-values) and the last
    /// events, as the reference computes them from the logs.
    func assertAgrees(_ flow: String, _ args: [String], idle: (text: String, seconds: Int)? = nil,
                      file: StaticString = #filePath, line: UInt = #line) throws {
        let label = "\(flow) " + args.joined(separator: " ")
        let e = try explain(flow, args + (idle.map { ["--idle", $0.text] } ?? []), file: file, line: line)
        let ref = try reference(flow, args + (idle.map { ["--idle-seconds", String($0.seconds)] } ?? []))
        var users = try XCTUnwrap(e["users"] as? [String: Int], label)
        XCTAssertEqual(users.removeValue(forKey: "compared"), (users["dropped"] ?? 0) - (users["dropped_not_eligible"] ?? 0) + (users["went_on"] ?? 0))
        XCTAssertEqual(users, ref["users"] as? [String: Int], "\(label): users", file: file, line: line)
        func key(_ row: [String: Any]) -> String {
            "\(row["kind"] as? String ?? "?") \(row["key"] as? String ?? "-") \(row["value"] as? String ?? "?")"
        }
        let rows = try XCTUnwrap(e["attributes"] as? [[String: Any]])
        let expected = Dictionary(uniqueKeysWithValues: try XCTUnwrap(ref["attributes"] as? [[String: Any]]).map { (key($0), $0) })
        XCTAssertEqual(Set(rows.map(key)), Set(expected.keys), "\(label): attribute values", file: file, line: line)
        XCTAssertGreaterThan(rows.count, 5, label, file: file, line: line)
        for row in rows {
            let k = "\(label) \(key(row))"
            guard let r = expected[key(row)] else { continue }
            for field in ["users", "dropped", "rest_users", "rest_dropped"] {
                XCTAssertEqual(row[field] as? Int, r[field] as? Int, "\(k) \(field)", file: file, line: line)
            }
            assertClose(row["difference_from_rest"], r["difference"], relative: 1e-12, "\(k) difference", file: file, line: line)
            let ci = row["difference_ci95"] as? [String: Double]
            assertClose(ci?["low"], r["ci_low"], "\(k) interval low", file: file, line: line)
            assertClose(ci?["high"], r["ci_high"], "\(k) interval high", file: file, line: line)
            assertClose(row["p_value"], r["p_value"], "\(k) p", file: file, line: line)
            assertClose(row["p_value_adjusted"], r["p_value_adjusted"], "\(k) adjusted p", file: file, line: line)
        }
        // Strongest evidence first.
        let adjusted = rows.map { $0["p_value_adjusted"] as? Double ?? 2 }
        XCTAssertEqual(adjusted, adjusted.sorted(), "\(label): sorted by evidence", file: file, line: line)
        func eventKey(_ o: [String: Any]) -> String {
            "\(o["event"] as? String ?? "?") \((o["properties"] as? [String: String] ?? [:]).sorted { $0.key < $1.key })"
        }
        let last = try XCTUnwrap(e["last_events"] as? [[String: Any]])
        let refLast = Dictionary(uniqueKeysWithValues: try XCTUnwrap(ref["last_events"] as? [[String: Any]]).map { (eventKey($0), $0) })
        XCTAssertEqual(Set(last.map(eventKey)), Set(refLast.keys), "\(label): last events", file: file, line: line)
        for l in last {
            XCTAssertEqual(l["users"] as? Int, refLast[eventKey(l)]?["users"] as? Int, "\(label) \(eventKey(l))", file: file, line: line)
            assertClose(l["share"], refLast[eventKey(l)]?["share"], "\(label) \(eventKey(l)) share", file: file, line: line)
        }
        XCTAssertEqual(last.reduce(0) { $0 + ($1["users"] as? Int ?? 0) }, users["dropped"], "\(label): every dropped user's last event",
                       file: file, line: line)
    }

    func testEveryFigureAgreesWithTheReference() throws {
        for args in [["--step", "signIn"], ["--step", "journeyAffirmation"], ["--step", "notificationsPermission"],
                     ["--step", "notificationsPermission", "--lane", "glp1"], ["--step", "healthKitBenefits", "--lane", "explorers"],
                     ["--step", "trackingAffirmation"], ["--step", "doseSelection"]] {
            try assertAgrees("glp1", args)
        }
        // A short idle window: more users abandoned, none in progress.
        try assertAgrees("glp1", ["--step", "healthKitBenefits"], idle: ("1h", 3600))
        // Mid-week: journeys with later events are folded again up to as-of.
        try assertAgrees("glp1", ["--step", "notificationsPermission", "--as-of", "2026-10-04T06:00:00Z"])
        try assertAgrees("shieldai", ["--step", "auth"])
        try assertAgrees("shieldai", ["--step", "biometricPermission"])
        try assertAgrees("screentime-rewards", ["--step", "familyControlsAuthorization"])
        try assertAgrees("trendy", ["--step", "permissions"])
        try assertAgrees("baby-basics", ["--step", "addBaby"])
    }

    /// For every row of the report's step table that someone is eligible for, explaining
    /// the step on the row's lane counts the row's eligible, eligible_reached and dropped;
    /// without --lane, a step on several lanes sums its rows (the block of users on no lane
    /// included, where they can only drop).
    func testDroppedIsTheReportsDroppedPerLaneAndSummed() throws {
        let store = try XCTUnwrap(Self.stores["glp1"])
        let r = try runFunnel(["report", "--store", store, "--flow", "glp1", "--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let rows = try XCTUnwrap(try jsonObject(r.stdout)["steps"] as? [[String: Any]])
        var summed: [String: (eligible: Int, reached: Int, dropped: Int)] = [:]
        var checked = 0
        for row in rows {
            let step = try XCTUnwrap(row["step"] as? String)
            let eligible = row["eligible"] as? Int ?? 0, reached = row["eligible_reached"] as? Int ?? 0
            let dropped = row["dropped"] as? Int ?? 0
            summed[step, default: (0, 0, 0)].eligible += eligible
            summed[step, default: (0, 0, 0)].reached += reached
            summed[step, default: (0, 0, 0)].dropped += dropped
            guard let lane = row["lane"] as? String, lane != "(undecided)", eligible > 0 else { continue }
            let users = try XCTUnwrap(try explain("glp1", ["--step", step, "--lane", lane])["users"] as? [String: Int])
            XCTAssertEqual(users["eligible"], eligible, "\(step) \(lane)")
            XCTAssertEqual(users["reached"], reached, "\(step) \(lane)")
            XCTAssertEqual(users["dropped"], dropped, "\(step) \(lane)")
            checked += 1
        }
        XCTAssertEqual(checked, 36)
        for (step, figures) in summed where figures.eligible > 0 {
            let users = try XCTUnwrap(try explain("glp1", ["--step", step])["users"] as? [String: Int])
            XCTAssertEqual(users["eligible"], figures.eligible, step)
            XCTAssertEqual(users["reached"], figures.reached, step)
            XCTAssertEqual(users["dropped"], figures.dropped, step)
            XCTAssertEqual(users["dropped_not_eligible"], 0, step)
        }
        // The same under a selection: a cohort, a filter on an answer and a start window.
        let selection = ["--cohort", "glp1", "--where", "weightGoal=lose", "--since", "2026-10-03"]
        let selected = try runFunnel(["report", "--store", store, "--flow", "glp1", "--format", "json"] + selection)
        var sums: [String: (eligible: Int, dropped: Int)] = [:]
        for row in try XCTUnwrap(try jsonObject(selected.stdout)["steps"] as? [[String: Any]]) {
            let step = try XCTUnwrap(row["step"] as? String)
            sums[step, default: (0, 0)].eligible += row["eligible"] as? Int ?? 0
            sums[step, default: (0, 0)].dropped += row["dropped"] as? Int ?? 0
        }
        XCTAssertEqual(sums.values.map(\.dropped).reduce(0, +), 4)
        for (step, figures) in sums where figures.eligible > 0 {
            let users = try XCTUnwrap(try explain("glp1", ["--step", step] + selection)["users"] as? [String: Int])
            XCTAssertEqual(users["eligible"], figures.eligible, "\(step) \(selection)")
            XCTAssertEqual(users["dropped"], figures.dropped, "\(step) \(selection)")
        }
    }

    /// Wrong steps and lanes, and steps nobody is eligible for, say so and exit 2; a
    /// missing --step or a wrong format is a usage error (64).
    func testBadArgumentsSayWhatExists() throws {
        let store = try XCTUnwrap(Self.stores["glp1"])
        func run(_ args: [String]) throws -> RunResult { try runFunnel(["explain", "--store", store] + args) }
        let cases: [([String], Int32, String)] = [
            (["--flow", "glp1", "--step", "signin"], 2, "funnel explain: flow glp1 has no step \"signin\"; steps: welcome, signIn,"),
            (["--flow", "glp1", "--step", "welcome"], 2,
             "funnel explain: nobody is eligible for welcome: it comes before the step users start on"),
            (["--flow", "glp1", "--step", "medicationSelection", "--lane", "explorers"], 2,
             "funnel explain: lane explorers of flow glp1 has no step medicationSelection; lanes with it: glp1"),
            (["--flow", "glp1", "--step", "height", "--lane", "glp2"], 2, "funnel explain: --lane \"glp2\": flow glp1 has no such lane; lanes: explorers, glp1"),
            (["--flow", "glp1", "--step", "height", "--lane", "(undecided)"], 2, "are eligible for no step after the shared ones"),
            (["--flow", "glp1", "--step", "goalWeight", "--where", "weightGoal=maintain"], 2,
             "funnel explain: nobody in this selection is eligible for goalWeight: of 92 users counted"),
            (["--flow", "glp7", "--step", "signIn"], 2, "funnel explain: unknown flow \"glp7\""),
            (["--flow", "glp1"], 64, "funnel explain: Missing expected argument '--step <step>'"),
            (["--flow", "glp1", "--step", "signIn", "--format", "csv"], 64, "funnel explain: The value 'csv' is invalid for '--format <format>'"),
        ]
        for (args, status, message) in cases {
            let r = try run(args)
            XCTAssertEqual(r.status, status, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
            XCTAssertEqual(r.stdout, "", "\(args)")
        }
        // Without a store: 2, before anything is created.
        let missing = tempDir().appendingPathComponent("none.sqlite").path
        let none = try runFunnel(["explain", "--store", missing, "--flow", "glp1", "--step", "signIn"])
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.stderr.hasPrefix("funnel explain: no store at"), none.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
    }

    /// Text fits 80 columns and leads with the evidence; JSON has sorted keys and nulls;
    /// Markdown lists every value.
    func testFormats() throws {
        let store = try XCTUnwrap(Self.stores["glp1"])
        let text = try runFunnel(["explain", "--store", store, "--flow", "glp1", "--step", "signIn"])
        XCTAssertEqual(text.status, 0, text.stderr)
        let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertTrue(lines.allSatisfy { $0.count <= 80 }, text.stdout)
        XCTAssertEqual(lines.first, "What explains the drop-off at signIn")
        XCTAssertTrue(text.stdout.contains("\neligible 393 · reached 393 · dropped there 29 · went on 360 · in progress there\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("\nsign_in_failed reason=password_reset\n"
            + "                                      41   11  26.8%   +21.7 +10.2…+36.9 <0.001*\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("\n(no sign_in_failed)                  291   10   3.4%   -16.0  -25.0…-8.8 <0.001*\n"),
                      text.stdout)
        XCTAssertTrue(text.stdout.contains("\nwhat the 29 users who dropped there did last on signIn\n"), text.stdout)
        let wide = try runFunnel(["explain", "--store", store, "--flow", "glp1", "--step", "notificationsPermission"])
        XCTAssertTrue(wide.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 }, wide.stdout)
        XCTAssertTrue(wide.stdout.hasPrefix("What explains the drop-off at notificationsPermission · lanes explorers, glp1\n  (summed)\n"),
                      wide.stdout)

        let json = try runFunnel(["explain", "--store", store, "--flow", "glp1", "--step", "signIn", "--format", "json"]).stdout
        let o = try jsonObject(json)
        XCTAssertEqual(Set(o.keys), ["flow", "flow_title", "step", "step_title", "step_kind", "lane", "lanes", "shared", "cohort",
                                     "filters", "since", "until", "as_of", "idle_seconds", "users", "drop_rate", "drop_rate_ci95",
                                     "attributes", "last_events"])
        XCTAssertTrue(o["lane"] is NSNull && o["cohort"] is NSNull, json)
        XCTAssertEqual(o["shared"] as? Bool, true)
        XCTAssertEqual(o["as_of"] as? String, "2026-10-08T11:31:42.721Z")
        let keys = json.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map { $0.split(separator: "\"")[1] }
        XCTAssertEqual(keys, keys.sorted(), "top-level keys sorted")
        let first = try XCTUnwrap((o["attributes"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(first.keys), ["kind", "key", "value", "users", "dropped", "drop_rate", "rest_users", "rest_dropped",
                                         "difference_from_rest", "difference_ci95", "p_value", "p_value_adjusted"])
        XCTAssertEqual(first["value"] as? String, "(no sign_in_failed)")
        XCTAssertTrue(first["key"] is NSNull)

        let markdown = try runFunnel(["explain", "--store", store, "--flow", "glp1", "--step", "signIn", "--format", "markdown"]).stdout
        XCTAssertTrue(markdown.hasPrefix("# What explains the drop-off at `signIn`\n"), markdown)
        // A heading row and a row per value, a heading row and a row per last event.
        XCTAssertEqual(markdown.components(separatedBy: "\n| ").count - 1, 1 + (o["attributes"] as? [Any] ?? []).count
                       + 1 + (o["last_events"] as? [Any] ?? []).count)
    }
}
