import XCTest
import Foundation
import TestSupport

/// `funnel paths` on the bundled sample data, checked figure by figure against
/// scripts/reference_paths.py, an independent plain-Python reading of docs/paths.md; its
/// text at 80 columns, its errors, and its HTML page in headless Chromium.
final class PathsCommandTests: XCTestCase {
    static let flows = ["glp1", "baby-basics", "screentime-rewards", "shieldai", "trendy"]

    /// A store holding one flow's sample data.
    func store(_ flow: String) throws -> String {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        let r = try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent(flow).path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return store
    }

    /// The second and the last step of the flow's first lane: for the time between.
    func stepsApart(_ flow: String) throws -> (String, String) {
        let data = try Data(contentsOf: packageRoot.appendingPathComponent("schemas/flows/\(flow).json"))
        let definition = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let lane = try XCTUnwrap((definition["lanes"] as? [[String: Any]])?.first?["steps"] as? [Any])
        let ids = lane.compactMap { ($0 as? String) ?? ($0 as? [String: Any])?["id"] as? String }
        return (ids[1], ids[ids.count - 1])
    }

    /// Rows as sets of comparable text, whatever order each side lists them in.
    func rows(_ value: Any?, _ keys: [String]) -> Set<String> {
        Set(((value as? [[String: Any]]) ?? []).map { row in
            keys.map { key in
                guard let v = row[key] else { return "\(key)=nil" }
                if let d = v as? [String: Any] {
                    return key + "=" + d.keys.sorted().map { "\($0):\(d[$0] ?? "")" }.joined(separator: ",")
                }
                return "\(key)=\(v)"
            }.joined(separator: " ")
        })
    }

    func testEveryFlowAgreesWithTheReference() throws {
        for flow in Self.flows {
            try assertAgree(flow, logs: sampleData.appendingPathComponent(flow).path, store: try store(flow))
        }
    }

    /// Users who stray (`funnel sample --wander`): skips, off-path moves and returns after
    /// days away on an earlier step, every kind counted as the reference counts it.
    func testASimulatedSetThatStraysAgreesWithTheReference() throws {
        for flow in ["glp1", "baby-basics"] {
            let logs = tempDir().appendingPathComponent("logs").path
            let sample = try runFunnel(["sample", "--flow", flow, "--users", "600", "--seed", "5", "--wander", "--out", logs])
            XCTAssertEqual(sample.status, 0, sample.stderr)
            let store = tempDir().appendingPathComponent("s.sqlite").path
            XCTAssertEqual(try runFunnel(["ingest", "--store", store, logs]).status, 0)
            let kinds = try assertAgree(flow, logs: logs, store: store)
            XCTAssertEqual(kinds.moves, ["back", "forward", "off_path", "skip"], flow)
            XCTAssertTrue(kinds.returns.isSuperset(of: ["first", "earlier"]), "\(flow): \(kinds.returns)")
        }
    }

    /// `funnel paths` on `store` against the reference on `logs`, at idle 24 h and 1 h, with the
    /// time between the second and the last step of the first lane; the kinds of moves and of
    /// returns seen.
    @discardableResult
    func assertAgree(_ flow: String, logs: String, store: String) throws -> (moves: Set<String>, returns: Set<String>) {
        var kinds: (moves: Set<String>, returns: Set<String>) = ([], [])
        do {
            let (from, to) = try stepsApart(flow)
            for idle in ["24h", "1h"] {
                let label = "\(flow) idle \(idle) from \(from) to \(to)"
                let r = try runFunnel(["paths", "--store", store, "--flow", flow, "--idle", idle, "--from", from, "--to", to,
                                       "--format", "json"])
                XCTAssertEqual(r.status, 0, "\(label): \(r.stderr)")
                let got = try jsonObject(r.stdout)
                let want = try referenceJSON("reference_paths.py", [
                    "--definition", packageRoot.appendingPathComponent("schemas/flows/\(flow).json").path,
                    "--idle-seconds", idle == "1h" ? "3600" : "86400", "--from", from, "--to", to, logs])
                XCTAssertEqual(got["flow"] as? String, flow, label)
                XCTAssertEqual(got["idle_seconds"] as? Double, idle == "1h" ? 3600 : 86400, label)
                XCTAssertTrue(got["cohort"] is NSNull, label)
                XCTAssertEqual(got["users"] as? [String: Int], want["users"] as? [String: Int], label)
                XCTAssertGreaterThan((got["users"] as? [String: Int])?["moved"] ?? 0, 100, label)
                XCTAssertEqual(rows(got["transitions"], ["from", "to", "kind", "users", "moves"]),
                               rows(want["transitions"], ["from", "to", "kind", "users", "moves"]), label)
                XCTAssertEqual(rows(got["exits"], ["step", "completed", "in_progress", "abandoned"]),
                               rows(want["exits"], ["step", "completed", "in_progress", "abandoned"]), label)
                // What the abandoned users did last, as text and users, per step.
                let lastEvents = ((got["exits"] as? [[String: Any]]) ?? []).map { exit -> [String: Any] in
                    var texts: [String: Int] = [:]
                    for e in (exit["abandoned_last_events"] as? [[String: Any]]) ?? [] {
                        let props = (e["properties"] as? [String: String]) ?? [:]
                        let text = ([e["event"] as? String ?? "?"] + props.keys.sorted().map { "\($0)=\(props[$0] ?? "")" })
                            .joined(separator: " ")
                        texts[text] = e["users"] as? Int
                    }
                    return ["step": exit["step"] ?? "", "last_events": texts]
                }
                XCTAssertEqual(rows(lastEvents, ["step", "last_events"]), rows(want["exits"], ["step", "last_events"]), label)
                XCTAssertEqual(rows(got["returns"], ["step", "users", "returns", "came_back"]),
                               rows(want["returns"], ["step", "users", "returns", "came_back"]), label)
                if idle == "1h" { XCTAssertFalse((got["returns"] as? [Any] ?? []).isEmpty, "\(label): no returns") }
                let between = try XCTUnwrap(got["time_between"] as? [String: Any], label)
                let reference = try XCTUnwrap(want["time_between"] as? [String: Any], label)
                XCTAssertEqual(between["users"] as? Int, reference["users"] as? Int, label)
                XCTAssertGreaterThan(between["users"] as? Int ?? 0, 50, label)
                for k in ["p50", "p75", "p90", "p95", "mean"] {
                    let a = try XCTUnwrap(between[k] as? Double, "\(label) \(k)")
                    let b = try XCTUnwrap(reference[k] as? Double, "\(label) \(k) (reference)")
                    XCTAssertEqual(a, b, accuracy: 1e-6, "\(label): \(k)")
                }
                // Every adjacent pair's time between, to the microsecond.
                let pairs = rows(got["adjacent_pairs"], ["from", "to", "users"])
                XCTAssertEqual(pairs, rows(want["adjacent_pairs"], ["from", "to", "users"]), label)
                XCTAssertGreaterThan(pairs.count, 2, label)
                let wanted = (want["adjacent_pairs"] as? [[String: Any]]) ?? []
                for pair in (got["adjacent_pairs"] as? [[String: Any]]) ?? [] {
                    let other = wanted.first { $0["from"] as? String == pair["from"] as? String && $0["to"] as? String == pair["to"] as? String }
                    for k in ["p50", "p90", "mean"] {
                        XCTAssertEqual(pair[k] as? Double ?? -1, other?[k] as? Double ?? -2, accuracy: 1e-6, "\(label): \(pair) \(k)")
                    }
                }
                for t in (got["transitions"] as? [[String: Any]]) ?? [] { kinds.moves.insert(t["kind"] as? String ?? "?") }
                for r in (got["returns"] as? [[String: Any]]) ?? [] {
                    for (kind, n) in (r["came_back"] as? [String: Int]) ?? [:] where n > 0 { kinds.returns.insert(kind) }
                }
            }
        }
        return kinds
    }

    /// The report's adjacent pairs are `funnel paths`' figures for the same selection, to the
    /// bit: on every flow's sample data, a cohort, a start window and an earlier as-of (which
    /// refolds), and users who stray; each of GLP-1's pairs also against `paths --from --to`,
    /// and the strays' against the reference. The text shows the three slowest under the
    /// step table.
    func testTheReportShowsThePathsAdjacentPairs() throws {
        func pairs(_ command: String, _ store: String, _ flow: String, _ more: [String]) throws -> [[String: Any]] {
            let r = try runFunnel([command, "--store", store, "--flow", flow, "--format", "json"] + more)
            XCTAssertEqual(r.status, 0, r.stderr)
            return try XCTUnwrap(try jsonObject(r.stdout)["adjacent_pairs"] as? [[String: Any]], "\(command) \(flow) \(more)")
        }
        let selections = [["--cohort", "glp1"], ["--since", "2026-10-03", "--until", "2026-10-06"], ["--as-of", "2026-10-04T12:00:00Z"]]
        for flow in Self.flows {
            let store = try store(flow)
            for more in [[]] + (flow == "glp1" ? selections : []) {
                let got = try pairs("report", store, flow, more)
                XCTAssertEqual(got as NSArray, try pairs("paths", store, flow, more) as NSArray, "\(flow) \(more)")
                XCTAssertGreaterThan(got.count, 2, "\(flow) \(more)")
            }
            guard flow == "glp1" else { continue }
            for pair in try pairs("report", store, flow, []) {
                let from = try XCTUnwrap(pair["from"] as? String), to = try XCTUnwrap(pair["to"] as? String)
                let r = try runFunnel(["paths", "--store", store, "--flow", flow, "--from", from, "--to", to, "--format", "json"])
                XCTAssertEqual(try jsonObject(r.stdout)["time_between"] as? NSDictionary, pair as NSDictionary, "\(from) → \(to)")
            }
            let text = try runFunnel(["report", "--store", store, "--flow", flow]).stdout
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let title = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("slowest steps to the next on a lane") }, text)
            XCTAssertTrue(lines[title + 4].contains(" → "), text)
            XCTAssertLessThan(try XCTUnwrap(lines.firstIndex { $0.hasPrefix("step ") }), title, text)
            for line in lines { XCTAssertLessThanOrEqual(line.count, 80, String(line)) }
        }
        // Users who stray: skips, back moves, returns; every pair as the reference has it.
        let logs = tempDir().appendingPathComponent("logs").path
        XCTAssertEqual(try runFunnel(["sample", "--flow", "glp1", "--users", "600", "--seed", "5", "--wander", "--out", logs]).status, 0)
        let store = tempDir().appendingPathComponent("s.sqlite").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, logs]).status, 0)
        let got = try pairs("report", store, "glp1", [])
        XCTAssertEqual(got as NSArray, try pairs("paths", store, "glp1", []) as NSArray)
        let want = try referenceJSON("reference_paths.py", [
            "--definition", packageRoot.appendingPathComponent("schemas/flows/glp1.json").path, logs])
        XCTAssertEqual(rows(got, ["from", "to", "users"]), rows(want["adjacent_pairs"], ["from", "to", "users"]))
        let wanted = (want["adjacent_pairs"] as? [[String: Any]]) ?? []
        for pair in got {
            let other = wanted.first { $0["from"] as? String == pair["from"] as? String && $0["to"] as? String == pair["to"] as? String }
            for k in ["p50", "p75", "p90", "p95", "mean"] {
                XCTAssertEqual(pair[k] as? Double ?? -1, other?[k] as? Double ?? -2, accuracy: 1e-6, "\(pair) \(k)")
            }
        }
    }

    func testTextFitsEightyColumnsAndNamesTheFindingsFirst() throws {
        let store = try store("glp1")
        let r = try runFunnel(["paths", "--store", store, "--flow", "glp1", "--from", "height", "--to", "activityLevel"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for line in r.stdout.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 80, String(line)) }
        let findings = try XCTUnwrap(r.stdout.range(of: "moves off the expected path, most users first"))
        let waysOut = try XCTUnwrap(r.stdout.range(of: "ways out of each step"))
        XCTAssertLessThan(findings.lowerBound, waysOut.lowerBound)
        XCTAssertTrue(r.stdout.contains("users    started 393 · viewed a step 393 · moved 360"), r.stdout)
        XCTAssertTrue(r.stdout.contains("time from height to activityLevel"), r.stdout)
        XCTAssertTrue(r.stdout.contains("users 296 · p50 1m 26s"), r.stdout)
        for format in ["csv", "markdown"] {
            let out = try runFunnel(["paths", "--store", store, "--flow", "glp1", "--format", format])
            XCTAssertEqual(out.status, 0, out.stderr)
            XCTAssertTrue(out.stdout.contains("birthdayPicker"), format)
        }
    }

    func testUnknownStepsAndLoneOptionsAreClearErrors() throws {
        let store = try store("trendy")
        let cases: [([String], String)] = [
            (["--from", "nope", "--to", "finish"], "funnel paths: --from nope: flow trendy has no step \"nope\""),
            (["--from", "finish"], "funnel paths: --from needs --to"),
        ]
        for (args, message) in cases {
            let r = try runFunnel(["paths", "--store", store, "--flow", "trendy"] + args)
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix(message), r.stderr)
        }
    }

    /// The page stands alone (no script, nothing fetched), draws every kind of move the data
    /// has, and its tables fit a 1280-pixel window.
    func testHTMLPageInChromium() throws {
        guard Chromium.path != nil else {
            let message = "chromium is not on PATH: install it with `apt-get install -y chromium` (Debian) to run the browser test"
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(message) }
            throw XCTSkip(message)
        }
        let store = try store("glp1")
        let page = tempDir().appendingPathComponent("glp1-paths.html")
        let r = try runFunnel(["paths", "--store", store, "--flow", "glp1", "--idle", "1h", "--from", "height", "--to", "activityLevel",
                               "--output", page.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let html = try String(contentsOf: page, encoding: .utf8)
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"))
        for banned in ["<script", "http://", "https://", "url(", "@import", "<link", "<img", "src=", "href="] {
            XCTAssertFalse(html.lowercased().contains(banned), "page contains \(banned)")
        }
        XCTAssertTrue(html.contains("<path class=\"forward\""))
        XCTAssertTrue(html.contains("<path class=\"back\""))
        XCTAssertTrue(html.contains("<pre class=\"command\">funnel paths --flow glp1 --idle 1h --from height --to activityLevel</pre>"))
        let layout = try Chromium.layout(of: page, width: 1280)
        XCTAssertEqual(layout.boxes.map(\.label), ["Moves table.", "Where users last viewed a step table.", "Returns table.",
                                                   "Time to the next step table.", "Time from height to activityLevel table."])
        XCTAssertLessThanOrEqual(layout.documentWidth, layout.viewport, "\(layout)")
        for box in layout.boxes {
            XCTAssertLessThanOrEqual(box.scrollWidth, box.clientWidth, "\(box.label): \(layout)")
            XCTAssertLessThanOrEqual(box.right, layout.viewport, "\(box.label): \(layout)")
        }
    }
}
