import XCTest
import Foundation

/// Two breakdowns at once (`--by A --by B`), against scripts/reference_report.py's pairs.
extension ReportCommandTests {
    /// Each pair's users, completions, median time and comparison with the rest as the
    /// reference reads them from the logs, on every seed flow; every started user in exactly
    /// one pair.
    func testPairsAgreeWithTheReference() throws {
        for flow in Self.flows {
            let store = tempDir().appendingPathComponent("s.sqlite").path
            let dir = sampleData.appendingPathComponent(flow).path
            XCTAssertEqual(try runFunnel(["ingest", "--store", store, dir]).status, 0)
            let pairs = flow == "glp1" ? [["app_version", "flag:trackingStyleQuestion"], ["platform", "day"], ["flag:trackingStyleQuestion", "platform"]]
                : [["app_version", "platform"], ["day", "app_version"]]
            for dims in pairs { try assertPairsAgree(flow, dims, store: store, dir: dir) }
        }
        let store = tempDir().appendingPathComponent("s.sqlite").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path]).status, 0)
        // The order: versions ascending, then on before off; day buckets marked as with one --by.
        let pairs = try jsonObject(try runFunnel(["report", "--flow", "glp1", "--by", "app_version", "--by", "flag:trackingStyleQuestion",
                                                  "--store", store, "--format", "json"]).stdout)
        XCTAssertEqual((pairs["groups"] as? [[String: Any]])?.map { $0["value"] as? String ?? "" },
                       ["3.1.0 · on", "3.1.0 · off", "3.2.0 · on", "3.2.0 · off", "3.2.1 · on", "3.2.1 · off", "3.3.0 · on", "3.3.0 · off"])
        let days = try XCTUnwrap(try jsonObject(try runFunnel(["report", "--flow", "glp1", "--by", "platform", "--by", "day",
                                                                "--store", store, "--format", "json"]).stdout)["groups"] as? [[String: Any]])
        for g in days {
            let day = try XCTUnwrap((g["values"] as? [String: String])?["day"])
            XCTAssertEqual(g["settled"] as? Bool, day < "2026-10-07", day)
        }
    }

    func assertPairsAgree(_ flow: String, _ dims: [String], store: String, dir: String,
                          file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try runFunnel(["report", "--flow", flow, "--by", dims[0], "--by", dims[1], "--store", store, "--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        let o = try jsonObject(r.stdout)
        XCTAssertEqual(o["by"] as? String, dims.joined(separator: ","), file: file, line: line)
        XCTAssertEqual(o["by_dimensions"] as? [String], dims, file: file, line: line)
        let groups = try XCTUnwrap(o["groups"] as? [[String: Any]], file: file, line: line)
        let ref = try XCTUnwrap(try reference(["--flow", flow, "--pair", dims[0], "--pair", dims[1], dir])["pairs"] as? [[String: Any]])
        let label = "\(flow) " + dims.joined(separator: " × ")
        XCTAssertEqual(groups.count, ref.count, label, file: file, line: line)
        XCTAssertGreaterThan(groups.count, 3, label, file: file, line: line)
        let started = groups.map { (($0["report"] as? [String: Any])?["users"] as? [String: Int])?["started"] ?? -1 }
        XCTAssertEqual(started.reduce(0, +), (o["users"] as? [String: Int])?["started"], label, file: file, line: line)
        XCTAssertTrue(started.allSatisfy { $0 > 0 }, "\(label): only pairs that have users", file: file, line: line)
        for e in ref {
            let values = try XCTUnwrap(e["values"] as? [String: String])
            let g = try XCTUnwrap(groups.first { $0["values"] as? [String: String] == values }, "\(label) \(values)", file: file, line: line)
            let at = "\(label) \(values)"
            XCTAssertEqual(g["value"] as? String, dims.compactMap { values[$0] }.joined(separator: " · "), at, file: file, line: line)
            let report = try XCTUnwrap(g["report"] as? [String: Any])
            let users = report["users"] as? [String: Int]
            XCTAssertEqual(users?["started"], e["started"] as? Int, at, file: file, line: line)
            XCTAssertEqual(users?["completed"], e["completed"] as? Int, at, file: file, line: line)
            let p50 = (report["time_to_complete_seconds"] as? [String: Any])?["p50"] as? Double
            XCTAssertEqual(p50 ?? -1, e["p50"] as? Double ?? -1, accuracy: 1e-6, "\(at) p50", file: file, line: line)
            for key in ["p_value", "p_value_adjusted"] {
                if let b = e[key] as? Double {
                    let a = try XCTUnwrap(g[key] as? Double, "\(at) \(key)", file: file, line: line)
                    XCTAssertEqual(a / b, 1, accuracy: 1e-9, "\(at) \(key)", file: file, line: line)
                } else {
                    XCTAssertTrue(g[key] is NSNull, "\(at) \(key): too few users", file: file, line: line)
                }
            }
            XCTAssertEqual(g["difference_from_rest"] as? Double ?? -9, e["difference"] as? Double ?? -9, accuracy: 1e-12, at,
                           file: file, line: line)
        }
    }

    /// Text fits 80 columns; CSV, Markdown and HTML show the pairs; one `--by` gains `values`.
    func testPairsInEveryFormat() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path]).status, 0)
        let args = ["report", "--flow", "glp1", "--by", "app_version", "--by", "flag:trackingStyleQuestion", "--store", store]
        let text = try runFunnel(args)
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 }, text.stdout)
        XCTAssertTrue(text.stdout.contains("by app_version and flag:trackingStyleQuestion\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("\n3.1.0       on      "), text.stdout)
        XCTAssertTrue(text.stdout.contains("\n            off     "), text.stdout)
        let csv = try runFunnel(args + ["--format", "csv"]).stdout
        XCTAssertTrue(csv.hasPrefix("app_version,flag:trackingStyleQuestion,lane,step,kind,"), csv)
        XCTAssertTrue(csv.contains("\n3.3.0,off,"), csv)
        let md = try runFunnel(args + ["--format", "markdown"]).stdout
        XCTAssertTrue(md.contains("\n## app\\_version = 3.2.0 · flag:trackingStyleQuestion = on\n"), md)
        let html = try runFunnel(args + ["--format", "html"]).stdout
        XCTAssertTrue(html.contains("<h2 id=\"by-h\">By app_version and flag:trackingStyleQuestion</h2>"), html)
        XCTAssertTrue(html.contains("<h3>app_version = 3.2.1 · flag:trackingStyleQuestion = off</h3>"), html)
        let timed = try runFunnel(["report", "--flow", "glp1", "--by", "day", "--by", "platform", "--store", store, "--format", "html"]).stdout
        XCTAssertFalse(timed.contains("<svg class=\"trendchart\""), "no trend chart for a pair")
        // One --by: `value` as before, and `values` and `by_dimensions` beside it.
        let one = try jsonObject(try runFunnel(["report", "--flow", "glp1", "--by", "platform", "--store", store, "--format", "json"]).stdout)
        XCTAssertEqual(one["by"] as? String, "platform")
        XCTAssertEqual(one["by_dimensions"] as? [String], ["platform"])
        let groups = try XCTUnwrap(one["groups"] as? [[String: Any]])
        XCTAssertEqual(groups.map { $0["value"] as? String }, ["ios", "ipados"])
        XCTAssertEqual(groups.map { $0["values"] as? [String: String] }, [["platform": "ios"], ["platform": "ipados"]])
    }

    func testBadBreakdownsSayWhatIsWrong() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path]).status, 0)
        let cases: [([String], String)] = [
            (["--by", "lane", "--by", "day", "--by", "platform"],
             "funnel report: --by \"lane\", \"day\", \"platform\": at most two breakdowns at once; drop --by \"platform\""),
            (["--by", "lane", "--by", "lane"], "funnel report: --by \"lane\" is given twice"),
            (["--by", "day", "--by", "week"], "funnel report: --by day and --by week: both break down by time; keep one of them"),
            (["--by", "lane", "--by", "flag:nope"], "funnel report: --by \"flag:nope\": flow glp1 has no flag nope; flags: completionScreenForExplorers, trackingStyleQuestion"),
        ]
        for (extra, message) in cases {
            let r = try runFunnel(["report", "--flow", "glp1", "--store", store] + extra)
            XCTAssertEqual(r.status, 2, extra.joined(separator: " "))
            XCTAssertTrue(r.stderr.hasPrefix(message), r.stderr)
        }
    }
}
