import XCTest
import Foundation

/// Period against period (`--compare`), against scripts/reference_report.py.
extension ReportCommandTests {
    /// Both periods' users, the completion difference, its interval and p-value as the
    /// reference computes them from the logs; each step's counts as the other period's own
    /// report gives them, and their difference and test as the reference computes them.
    func testPeriodComparisonAgreesWithTheReference() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        let dir = sampleData.appendingPathComponent("glp1").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, dir]).status, 0)
        let window = ["--since", "2026-10-04", "--until", "2026-10-08"]
        let r = try runFunnel(["report", "--flow", "glp1", "--store", store, "--format", "json", "--compare", "previous"] + window)
        XCTAssertEqual(r.status, 0, r.stderr)
        let o = try jsonObject(r.stdout)
        let c = try XCTUnwrap(o["comparison"] as? [String: Any])
        XCTAssertEqual(c["since"] as? String, "2026-09-30T00:00:00.000Z")
        XCTAssertEqual(c["until"] as? String, "2026-10-04T00:00:00.000Z")
        // As of 2026-10-08T11:31Z with 24 h idle: the earlier period is settled, this one not.
        XCTAssertEqual(c["settled"] as? Bool, true)
        XCTAssertEqual(c["current_settled"] as? Bool, false)
        let ref = try reference(["--flow", "glp1", "--since", "2026-10-04", "--until", "2026-10-08",
                                 "--compare-since", "2026-09-30", "--compare-until", "2026-10-04", dir])
        try assertAgree(o, ref, "2026-10-04..08")
        let refComparison = try XCTUnwrap(ref["comparison"] as? [String: Any])
        let users = try XCTUnwrap(c["users"] as? [String: Int])
        let refUsers = try XCTUnwrap(refComparison["users"] as? [String: Int])
        XCTAssertEqual(users["started"], refUsers["started"])
        XCTAssertEqual(users["completed"], refUsers["completed"])
        XCTAssertGreaterThan(users["started"] ?? 0, 50)
        try assertSameDifference(c["completion_difference"], refComparison["completion_difference"], "completion")
        // Steps: the other period's counts are its own report's; the test on them the reference's.
        let before = try jsonObject(try runFunnel(["report", "--flow", "glp1", "--store", store, "--format", "json",
                                                   "--since", "2026-09-30", "--until", "2026-10-04"]).stdout)
        let beforeSteps = try XCTUnwrap(before["steps"] as? [[String: Any]])
        let nowSteps = try XCTUnwrap(o["steps"] as? [[String: Any]])
        let steps = try XCTUnwrap(c["steps"] as? [[String: Any]])
        XCTAssertEqual(steps.count, nowSteps.filter { $0["tracked"] as? Bool == true }.count)
        func row(_ rows: [[String: Any]], _ s: [String: Any]) throws -> [String: Any] {
            try XCTUnwrap(rows.first { $0["step"] as? String == s["step"] as? String && $0["lane"] as? String == s["lane"] as? String })
        }
        var rates: [String] = []
        var tested: [[String: Any]] = []
        for s in steps {
            let b = try row(beforeSteps, s), n = try row(nowSteps, s)
            let label = "\(s["lane"] as? String ?? "every lane")/\(s["step"] as? String ?? "?")"
            XCTAssertEqual(s["eligible"] as? Int, b["eligible"] as? Int, label)
            XCTAssertEqual(s["eligible_reached"] as? Int, b["eligible_reached"] as? Int, label)
            XCTAssertEqual(s["conversion_from_eligible"] as? Double, b["conversion_from_eligible"] as? Double, label)
            XCTAssertEqual(s["current_conversion_from_eligible"] as? Double, n["conversion_from_eligible"] as? Double, label)
            let counts = [n["eligible_reached"], n["eligible"], b["eligible_reached"], b["eligible"]].compactMap { $0 as? Int }
            if counts[1] > 0 && counts[3] > 0 {
                rates.append(counts.map(String.init).joined(separator: ","))
                tested.append(s)
            }
        }
        XCTAssertGreaterThan(tested.count, 10)
        let refRates = try XCTUnwrap(try reference(["--flow", "glp1"] + rates.flatMap { ["--rates", $0] } + [dir])["rates"] as? [Any])
        for (s, e) in zip(tested, refRates) { try assertSameDifference(s["difference"], e, s["step"] as? String ?? "?") }
        // An explicit period, and the same figures in text (80 columns) and Markdown.
        let explicit = try jsonObject(try runFunnel(["report", "--flow", "glp1", "--store", store, "--format", "json",
                                                     "--compare", "2026-09-30..2026-10-04"] + window).stdout)
        XCTAssertEqual(explicit["comparison"] as? NSDictionary, c as NSDictionary)
        let text = try runFunnel(["report", "--flow", "glp1", "--store", store, "--compare", "previous"] + window).stdout
        XCTAssertTrue(text.contains("this period 2026-10-04–2026-10-08~ against 2026-09-30–2026-10-04\n"), text)
        XCTAssertTrue(text.split(separator: "\n").allSatisfy { $0.count <= 80 }, text)
        XCTAssertTrue(text.contains("as of 2026-10-08T11:31:42.721Z · idle 24h · since 2026-10-04T00:00:00.000Z ·\n  until"), text)
        let md = try runFunnel(["report", "--flow", "glp1", "--store", store, "--compare", "previous", "--format", "markdown"] + window).stdout
        XCTAssertTrue(md.contains("## This period 2026-10-04–2026-10-08~ against 2026-09-30–2026-10-04\n"), md)
        let csv = try runFunnel(["report", "--flow", "glp1", "--store", store, "--compare", "previous", "--format", "csv"] + window).stdout
        let signIn = try XCTUnwrap(steps.first { $0["step"] as? String == "signIn" })
        XCTAssertTrue(csv.contains("\ncompared,,signIn,,,true,,\(signIn["eligible"] as? Int ?? -1),\(signIn["eligible_reached"] as? Int ?? -1),,,,1,,"
                                   + "\(users["started"] ?? -1),\(users["completed"] ?? -1),"), csv)
        let html = try runFunnel(["report", "--flow", "glp1", "--store", store, "--compare", "previous", "--format", "html"] + window).stdout
        XCTAssertTrue(html.contains("<h2 id=\"cmp-h\">This period 2026-10-04–2026-10-08~ against 2026-09-30–2026-10-04</h2>"), html)
    }

    /// On every seed flow: both periods' users and the completion difference as the reference
    /// computes them.
    func testPeriodComparisonOnEveryFlow() throws {
        for flow in Self.flows {
            let store = tempDir().appendingPathComponent("s.sqlite").path
            let dir = sampleData.appendingPathComponent(flow).path
            let r = try runFunnel(["report", "--flow", flow, "--store", store, "--format", "json", "--since", "2026-10-04",
                                   "--until", "2026-10-09", "--compare", "previous", dir])
            XCTAssertEqual(r.status, 0, r.stderr)
            let o = try jsonObject(r.stdout)
            let ref = try reference(["--flow", flow, "--since", "2026-10-04", "--until", "2026-10-09",
                                     "--compare-since", "2026-09-29", "--compare-until", "2026-10-04", dir])
            try assertAgree(o, ref, flow)
            let c = try XCTUnwrap(o["comparison"] as? [String: Any], flow)
            let refComparison = try XCTUnwrap(ref["comparison"] as? [String: Any])
            XCTAssertEqual((c["users"] as? [String: Int])?["started"], (refComparison["users"] as? [String: Int])?["started"], flow)
            XCTAssertEqual((c["users"] as? [String: Int])?["completed"], (refComparison["users"] as? [String: Int])?["completed"], flow)
            try assertSameDifference(c["completion_difference"], refComparison["completion_difference"], "\(flow) completion")
        }
    }

    /// points, ci_low, ci_high and p_value as the reference has them.
    func assertSameDifference(_ got: Any?, _ want: Any?, _ label: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let g = try XCTUnwrap(got as? [String: Any], label, file: file, line: line)
        let w = try XCTUnwrap(want as? [String: Any], label, file: file, line: line)
        for key in ["points", "ci_low", "ci_high", "p_value"] {
            if let b = w[key] as? Double {
                let a = try XCTUnwrap(g[key] as? Double, "\(label) \(key)", file: file, line: line)
                XCTAssertEqual(a, b, accuracy: 1e-9 * max(1, abs(b)), "\(label) \(key)", file: file, line: line)
            } else {
                XCTAssertTrue(g[key] is NSNull, "\(label) \(key): none", file: file, line: line)
            }
        }
    }

    func testBadComparisonsSayWhatIsWrong() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path]).status, 0)
        let cases: [([String], String)] = [
            (["--compare", "previous"], "funnel report: --compare previous needs --since and --until: the report's own period"),
            (["--since", "2026-10-04", "--compare", "previous"], "funnel report: --compare previous needs --until:"),
            (["--since", "2026-10-04", "--until", "2026-10-08", "--compare", "2026-10-01..2026-10-05"],
             "funnel report: --compare 2026-10-01..2026-10-05 overlaps the report's period (--since 2026-10-04T00:00:00.000Z --until 2026-10-08T00:00:00.000Z)"),
            (["--since", "2026-10-04", "--until", "2026-10-08", "--compare", "2026-10-03..2026-10-01"],
             "funnel report: --compare 2026-10-03..2026-10-01: its end (2026-10-01T00:00:00.000Z) is not after its start"),
            (["--since", "2026-10-04", "--until", "2026-10-08", "--compare", "last week"],
             "funnel report: --compare \"last week\": use previous or SINCE..UNTIL"),
            (["--since", "2026-10-04", "--until", "2026-10-08", "--compare", "2026-10-01..soon"], "funnel report: --compare: \"soon\" is not a time"),
            (["--since", "2026-10-04", "--until", "2026-10-08", "--compare", "previous", "--by", "lane"],
             "funnel report: --compare and --by: compare two periods"),
        ]
        for (extra, message) in cases {
            let r = try runFunnel(["report", "--flow", "glp1", "--store", store] + extra)
            XCTAssertEqual(r.status, 2, extra.joined(separator: " "))
            XCTAssertTrue(r.stderr.hasPrefix(message), r.stderr)
        }
    }
}
