import XCTest
import Foundation

/// Flow drift (docs/drift.md) on the bundled logs: every started user is on the report, and a
/// definition edited after the fact yields exactly the injected differences.
final class FlowDriftTests: XCTestCase {
    static let flows = ["glp1", "baby-basics", "screentime-rewards", "shieldai", "trendy"]

    /// A store per seed flow, holding that flow's sample logs.
    static let stores: [String: String] = {
        var out: [String: String] = [:]
        for flow in flows {
            let path = tempDir().appendingPathComponent("drift-\(flow).sqlite").path
            _ = try? runFunnel(["ingest", "--store", path, sampleData.appendingPathComponent(flow).path])
            out[flow] = path
        }
        return out
    }()

    func report(_ flow: String, _ args: [String] = [], store: String? = nil) throws -> [String: Any] {
        let r = try runFunnel(["report", "--store", store ?? FlowDriftTests.stores[flow] ?? "", "--flow", flow,
                               "--format", "json"] + args)
        XCTAssertEqual(r.status, 0, r.stderr)
        return try jsonObject(r.stdout)
    }

    /// Started users and, per step, the started users who viewed it: read from the store's
    /// exported lines, apart from the report.
    func viewers(_ flow: String, store: String) throws -> (started: Int, byStep: [String: Int]) {
        let r = try runFunnel(["export", "--store", store, "--flow", flow])
        XCTAssertEqual(r.status, 0, r.stderr)
        var started = Set<String>()
        var viewed: [String: Set<String>] = [:]
        for line in r.stdout.split(separator: "\n") {
            let o = try jsonObject(String(line))
            guard let user = o["user_id"] as? String, let name = o["event"] as? String else { continue }
            if name.hasSuffix("started") && !name.contains("sign_in") { started.insert(user) }
            if name.hasSuffix("step_viewed"), let step = o["step"] as? String { viewed[step, default: []].insert(user) }
        }
        return (started.count, viewed.mapValues { $0.intersection(started).count })
    }

    /// The sums the issue asks for: lanes add up to started, and per step the blocks' reached
    /// plus the off-lane viewers add up to the started users who viewed it.
    func assertSums(_ flow: String, _ o: [String: Any], store: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let truth = try viewers(flow, store: store)
        let users = try XCTUnwrap(o["users"] as? [String: Any])
        XCTAssertEqual(users["started"] as? Int, truth.started, flow, file: file, line: line)
        let lanes = try XCTUnwrap(o["lanes"] as? [[String: Any]])
        XCTAssertEqual(lanes.compactMap { $0["users"] as? Int }.reduce(0, +), truth.started, "\(flow): lanes", file: file, line: line)
        let steps = try XCTUnwrap(o["steps"] as? [[String: Any]])
        let drift = try XCTUnwrap(o["drift"] as? [[String: Any]])
        var counted: [String: Int] = [:]
        for row in steps { counted[row["step"] as? String ?? "", default: 0] += row["reached"] as? Int ?? 0 }
        for d in drift where d["kind"] as? String == "step_off_lane" {
            counted[d["step"] as? String ?? "", default: 0] += d["users"] as? Int ?? 0
        }
        let notInFlow = Set(drift.filter { $0["kind"] as? String == "step_not_in_flow" }.compactMap { $0["step"] as? String })
        for (step, n) in truth.byStep where !notInFlow.contains(step) {
            XCTAssertEqual(counted[step], n, "\(flow): users who viewed \(step)", file: file, line: line)
        }
        for step in notInFlow {
            let finding = drift.first { $0["kind"] as? String == "step_not_in_flow" && $0["step"] as? String == step }
            XCTAssertEqual(finding?["users"] as? Int, truth.byStep[step], "\(flow): viewers of \(step), not in the flow", file: file, line: line)
        }
    }

    func testCleanSampleDataHasNoDriftAndEveryUserIsCounted() throws {
        for flow in FlowDriftTests.flows {
            let o = try report(flow)
            XCTAssertEqual((o["drift"] as? [Any])?.count, 0, flow)
            try assertSums(flow, o, store: FlowDriftTests.stores[flow] ?? "")
            let r = try runFunnel(["flows", "drift", "--store", FlowDriftTests.stores[flow] ?? "", "--flow", flow])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stdout.hasPrefix("flow \(flow) agrees with the logs: no drift"), r.stdout)
        }
        // GLP-1: the users who stopped before the lane question are a block of their own.
        let lanes = try XCTUnwrap(try report("glp1")["lanes"] as? [[String: Any]])
        XCTAssertEqual(lanes.map { $0["lane"] as? String ?? "" }, ["explorers", "glp1", "(undecided)"])
        XCTAssertEqual(lanes.map { $0["users"] as? Int ?? 0 }, [182, 173, 38])
    }

    /// GLP-1's definition edited after the logs were written: a lane value renamed, a step
    /// removed, a flag no longer declared.
    func editedGLP1() throws -> URL {
        let dir = tempDir().appendingPathComponent("edited-flows")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var text = try String(contentsOf: packageRoot.appendingPathComponent("schemas/flows/glp1.json"), encoding: .utf8)
        text = text.replacingOccurrences(of: "already_on_glp1", with: "on_glp1")
        guard var d = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let steps = d["steps"] as? [[String: Any]], let lanes = d["lanes"] as? [[String: Any]],
              let flags = d["flags"] as? [[String: Any]] else { throw XCTSkip("glp1.json is not shaped as expected") }
        d["steps"] = steps.filter { $0["id"] as? String != "trackingAffirmation" }
        d["lanes"] = lanes.map { lane -> [String: Any] in
            var lane = lane
            lane["steps"] = (lane["steps"] as? [Any] ?? []).compactMap { s -> Any? in
                if s as? String == "trackingAffirmation" { return nil }
                guard var o = s as? [String: Any] else { return s }
                if o["id"] as? String == "trackingAffirmation" { return nil }
                if o["flag"] as? String == "completionScreenForExplorers" { o["flag"] = nil }
                return o.count == 1 ? o["id"] : o
            }
            return lane
        }
        d["flags"] = flags.filter { $0["id"] as? String != "completionScreenForExplorers" }
        try JSONSerialization.data(withJSONObject: d, options: [.prettyPrinted, .sortedKeys])
            .write(to: dir.appendingPathComponent("glp1.json"))
        return dir
    }

    func testEditedDefinitionListsExactlyTheInjectedDifferences() throws {
        let flows = try editedGLP1()
        let check = try runFunnel(["flows", "check", flows.appendingPathComponent("glp1.json").path])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        // A copy of the store: the edited definition refolds its journeys.
        let store = tempDir().appendingPathComponent("drift-edited.sqlite").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path]).status, 0)
        let o = try report("glp1", ["--flows", flows.path], store: store)
        let drift = try XCTUnwrap(o["drift"] as? [[String: Any]])
        let found = drift.map { d in
            [d["kind"], d["key"], d["value"], d["step"], d["flag"]].compactMap { $0 as? String }.joined(separator: " ")
        }
        XCTAssertEqual(found, ["unlisted_value journeyStatus already_on_glp1",
                               "step_not_in_flow trackingAffirmation",
                               "undeclared_flag completionScreenForExplorers"])
        // The glp1 lane's 173 users, the 172 who viewed trackingAffirmation, every started user.
        XCTAssertEqual(drift.map { $0["users"] as? Int ?? -1 }, [173, 172, 393])
        XCTAssertEqual(drift[0]["app_versions"] as? [String], ["3.1.0", "3.2.0", "3.2.1", "3.3.0"])
        // The first and the last step_completed that gave it (179 such events in the logs).
        XCTAssertEqual(drift[0]["first_seen"] as? String, "2026-10-01T00:18:40.540Z")
        XCTAssertEqual(drift[0]["last_seen"] as? String, "2026-10-08T02:51:54.300Z")
        try assertSums("glp1", o, store: store)
        // The renamed lane's users are on no lane, not lost.
        let lanes = try XCTUnwrap(o["lanes"] as? [[String: Any]])
        XCTAssertEqual(lanes.map { $0["users"] as? Int ?? 0 }, [182, 0, 173 + 38])
        // The cohort on the renamed value leaves them out, and says so.
        let cohort = try report("glp1", ["--flows", flows.path, "--cohort", "glp1"], store: store)
        XCTAssertEqual((cohort["users"] as? [String: Any])?["started"] as? Int, 0)
        let left = try XCTUnwrap((cohort["drift"] as? [[String: Any]])?.first)
        XCTAssertEqual(left["users"] as? Int, 0)
        XCTAssertEqual(left["users_left_out"] as? Int, 173)
        // Every format shows it.
        let text = try runFunnel(["report", "--store", store, "--flows", flows.path, "--flow", "glp1"]).stdout
        XCTAssertTrue(text.contains("• journeyStatus = already_on_glp1: a value the flow does not list"), text)
        XCTAssertTrue(text.contains("── no lane decided · 211 users"), text)
        XCTAssertTrue(text.split(separator: "\n").allSatisfy { $0.count <= 80 }, text)
        let markdown = try runFunnel(["report", "--store", store, "--flows", flows.path, "--flow", "glp1", "--format", "markdown"]).stdout
        XCTAssertTrue(markdown.contains("## Drift: the logs and the definition disagree"), markdown)
        XCTAssertTrue(markdown.contains("| step trackingAffirmation viewed: not in the flow, so on no row of the step table | 172 | 0 |"), markdown)
        let csv = try runFunnel(["report", "--store", store, "--flows", flows.path, "--flow", "glp1", "--format", "csv"]).stdout
        XCTAssertTrue(csv.contains("\ndrift,,,unlisted_value,journeyStatus = already_on_glp1,,173,"), csv)
        let html = try runFunnel(["report", "--store", store, "--flows", flows.path, "--flow", "glp1", "--format", "html"]).stdout
        XCTAssertTrue(html.contains("<h2 id=\"drift-h\">Drift: the logs and the definition disagree</h2>"))
        XCTAssertTrue(html.contains("flag completionScreenForExplorers: sent in context.flags, not declared by the flow"))
    }

    /// Baby Basics after a release renamed an answer: the logs say `authPath = create_account`,
    /// the edited definition knows `signup` in its place (values, lane and cohort).
    func testARenamedAnswerStaysSelectableAndItsUsersAreCounted() throws {
        let dir = tempDir().appendingPathComponent("renamed-flows")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let text = try String(contentsOf: packageRoot.appendingPathComponent("schemas/flows/baby-basics.json"), encoding: .utf8)
        try text.replacingOccurrences(of: "create_account", with: "signup")
            .write(to: dir.appendingPathComponent("baby-basics.json"), atomically: true, encoding: .utf8)
        let store = tempDir().appendingPathComponent("drift-renamed.sqlite").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("baby-basics").path]).status, 0)
        let o = try report("baby-basics", ["--flows", dir.path], store: store)
        let drift = try XCTUnwrap(o["drift"] as? [[String: Any]])
        XCTAssertEqual(drift.map { "\($0["kind"] ?? "") \($0["key"] ?? "") \($0["value"] ?? "") \($0["users"] ?? "")" },
                       ["unlisted_value authPath create_account 65"])
        try assertSums("baby-basics", o, store: store)
        let lanes = try XCTUnwrap(o["lanes"] as? [[String: Any]])
        XCTAssertEqual(lanes.map { $0["lane"] as? String ?? "" }, ["signup", "invite", "log_in", "(undecided)"])
        XCTAssertEqual(lanes.map { $0["users"] as? Int ?? 0 }, [0, 45, 54, 16 + 65])
        // The renamed cohort leaves them out and says how many; --where on the logs' value
        // selects them like any other users.
        let cohort = try report("baby-basics", ["--flows", dir.path, "--cohort", "signup"], store: store)
        XCTAssertEqual((cohort["users"] as? [String: Any])?["started"] as? Int, 0)
        XCTAssertEqual((cohort["drift"] as? [[String: Any]])?.first?["users_left_out"] as? Int, 65)
        let selected = try report("baby-basics", ["--flows", dir.path, "--where", "authPath=create_account"], store: store)
        XCTAssertEqual((selected["users"] as? [String: Any])?["started"] as? Int, 65)
        XCTAssertEqual((selected["drift"] as? [[String: Any]])?.first?["users"] as? Int, 65)
        XCTAssertEqual((selected["lanes"] as? [[String: Any]])?.last?["users"] as? Int, 65)
        // A filter on another key leaves nobody out because of the answer.
        let other = try report("baby-basics", ["--flows", dir.path, "--where", "hasChildren=true"], store: store)
        XCTAssertEqual((other["drift"] as? [[String: Any]])?.first?["users_left_out"] as? Int, 0)
    }

    func testFlowsDriftGivesTheEditForEachFinding() throws {
        let flows = try editedGLP1()
        let store = tempDir().appendingPathComponent("drift-command.sqlite").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path]).status, 0)
        let r = try runFunnel(["flows", "drift", "--store", store, "--flows", flows.path, "--flow", "glp1"])
        XCTAssertEqual(r.status, 1, "findings exit 1, like diff: \(r.stderr)")
        XCTAssertTrue(r.stdout.hasPrefix("flow glp1 and the logs disagree in 3 ways"), r.stdout)
        XCTAssertTrue(r.stdout.contains("fix: add \"already_on_glp1\" to the values of journeyStatus (collected by step"), r.stdout)
        XCTAssertTrue(r.stdout.contains("fix: declare step trackingAffirmation in `steps`"), r.stdout)
        XCTAssertTrue(r.stdout.contains("fix: declare flag completionScreenForExplorers in `flags`"), r.stdout)
        XCTAssertTrue(r.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 }, r.stdout)
        let json = try jsonObject(try runFunnel(["flows", "drift", "--store", store, "--flows", flows.path, "--flow", "glp1",
                                                 "--format", "json"]).stdout)
        XCTAssertEqual(json["users_started"] as? Int, 393)
        XCTAssertEqual((json["drift"] as? [[String: Any]])?.compactMap { $0["fix"] as? String }.count, 3)
        // The replay of a drifted user names the value that put them off the definition.
        let users = try runFunnel(["users", "--store", store, "--flows", flows.path, "--flow", "glp1",
                                   "--where", "journeyStatus=already_on_glp1", "--format", "csv"])
        XCTAssertEqual(users.status, 0, users.stderr)
        let rows = users.stdout.split(separator: "\n").dropFirst()
        XCTAssertEqual(rows.count, 173)
        let user = try XCTUnwrap(rows.first.flatMap { $0.split(separator: ",").first }.map(String.init))
        let replay = try runFunnel(["replay", "--store", store, "--flows", flows.path, "--flow", "glp1", "--user", user,
                                    "--format", "json"])
        XCTAssertEqual(replay.status, 0, replay.stderr)
        let verdict = try XCTUnwrap(try jsonObject(replay.stdout)["verdict"] as? String)
        XCTAssertTrue(verdict.contains("off the definition: journeyStatus = already_on_glp1 is not a value the flow lists, "
                                       + "so no lane is decided"), verdict)
    }
}
