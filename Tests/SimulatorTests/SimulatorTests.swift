import LogFiles
import Flows
import Foundation
import FunnelModel
import XCTest
@testable import Simulator
import TestSupport

final class SimulatorTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = Scratch.directory("simulator").path
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func flow(_ id: String) throws -> FlowDefinition { try FlowCatalog().flow(id) }

    func simulate(_ id: String, users: Int = 300, seed: UInt64 = 7, days: Int = 3) throws -> SimulationResult {
        try Simulation(flow: flow(id), options: SimulationOptions(users: users, seed: seed, days: days)).run()
    }

    static func object(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    // MARK: determinism

    func testSameSeedSameBytesOtherSeedOtherBytes() throws {
        func files(seed: UInt64, into sub: String) throws -> [String: Data] {
            let r = try simulate("glp1", users: 150, seed: seed)
            let out = dir + "/" + sub
            _ = try CollectorWriter(seed: seed).write(r.events, to: out)
            var d: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: out) {
                d[name] = FileManager.default.contents(atPath: out + "/" + name)
            }
            return d
        }
        let a = try files(seed: 42, into: "a"), b = try files(seed: 42, into: "b"), c = try files(seed: 43, into: "c")
        XCTAssertFalse(a.isEmpty)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
    }

    /// `firstUser` renames the users and changes nothing else: a day simulated after a history
    /// of 300 users brings 300 new users, none of them sharing an id with the history.
    func testFirstUserNumbersNewUsersAndKeepsTheirJourneys() throws {
        let glp1 = try flow("glp1")
        let history = try Simulation(flow: glp1, options: SimulationOptions(users: 300, seed: 7, days: 3)).run()
        let base = try Simulation(flow: glp1, options: SimulationOptions(users: 300, seed: 8, days: 1, startDay: "2026-10-04")).run()
        let later = try Simulation(flow: glp1, options: SimulationOptions(users: 300, seed: 8, days: 1, startDay: "2026-10-04",
                                                                          firstUser: 301)).run()
        XCTAssertEqual(history.users.first?.userID, "u-000001")
        XCTAssertEqual(later.users.map(\.userID).first, "u-000301")
        XCTAssertEqual(later.users.map(\.userID).last, "u-000600")
        XCTAssertTrue(Set(history.users.map(\.userID)).isDisjoint(with: later.users.map(\.userID)))
        // Without firstUser the day's users would be the history's users again.
        XCTAssertEqual(Set(base.users.map(\.userID)), Set(history.users.map(\.userID)))
        // The same journeys, line for line, but for the user id (wherever a line names it).
        XCTAssertEqual(later.events.count, base.events.count)
        XCTAssertGreaterThan(later.events.count, 1000)
        func id(_ n: Int) -> String { "\"u-" + String(repeating: "0", count: 6 - String(n).count) + String(n) + "\"" }
        for i in 0..<later.events.count {
            let line = base.events.line(i)
            let found = try XCTUnwrap(line.range(of: #""user_id":"u-[0-9]+""#, options: .regularExpression))
            let n = try XCTUnwrap(Int(line[found].dropFirst(13).dropLast()))
            XCTAssertEqual(later.events.line(i), line.replacingOccurrences(of: id(n), with: id(n + 300)))
        }
        XCTAssertThrowsError(try Simulation(flow: glp1, options: SimulationOptions(users: 1, firstUser: 0)))
    }

    // MARK: every line is a v1 event

    func testEveryLineIsAValidV1Event() throws {
        for id in Flows.builtIn.map(\.id) {
            let r = try simulate(id, users: 120)
            XCTAssertGreaterThan(r.events.count, 500, id)
            var ids = Set<String>()
            var offsets = Set<String>()
            for i in 0..<r.events.count {
                let line = r.events.line(i)
                guard let o = Self.object(line) else { return XCTFail("not JSON: \(line)") }
                let allowed: Set<String> = ["event_id", "event", "user_id", "ts", "flow", "step", "properties", "context"]
                XCTAssertTrue(Set(o.keys).isSubset(of: allowed), line)
                guard let eid = o["event_id"] as? String, let name = o["event"] as? String, let user = o["user_id"] as? String,
                      let ts = o["ts"] as? String, let flowID = o["flow"] as? String else { return XCTFail("required fields: \(line)") }
                XCTAssertTrue(ids.insert(eid).inserted, "event ids are unique: \(eid)")
                XCTAssertNotNil(EventName(rawValue: name), name)
                XCTAssertTrue(user.hasPrefix("u-") && user.count == 8, user)
                XCTAssertEqual(flowID, id)
                guard let time = Timestamp.parse(ts) else { return XCTFail("ts: \(ts)") }
                XCTAssertEqual(time.micros, r.events.micros[i], line)
                XCTAssertEqual(time.rfc3339(), ts, "written as Timestamp writes it")
                offsets.insert(String(ts.suffix(ts.hasSuffix("Z") ? 1 : 6)))
                XCTAssertNotNil(o["step"] as? String, "every simulated event names its step")
                if let p = o["properties"] { XCTAssertNotNil(p as? [String: Any], line) }
                guard let ctx = o["context"] as? [String: Any] else { return XCTFail("context: \(line)") }
                XCTAssertNotNil(ctx["app_version"] as? String)
                XCTAssertNotNil(ctx["platform"] as? String)
                XCTAssertNotNil(ctx["flags"] as? [String: Any])
            }
            XCTAssertGreaterThanOrEqual(offsets.count, 4, "mixed UTC offsets: \(offsets)")
        }
    }

    // MARK: the journey follows the flow

    /// Users' events grouped by user in event order.
    func journeys(_ r: SimulationResult) -> [String: [[String: Any]]] {
        var byUser: [String: [(Int64, Int, [String: Any])]] = [:]
        for i in 0..<r.events.count {
            guard let o = Self.object(r.events.line(i)), let u = o["user_id"] as? String else { continue }
            byUser[u, default: []].append((r.events.micros[i], i, o))
        }
        return byUser.mapValues { $0.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2) }
    }

    func testConditionsAndFlagsAreHonoured() throws {
        let f = try flow("glp1")
        let r = try simulate("glp1", users: 600)
        let journeys = journeys(r)
        var maintainers = 0, daily = 0, flagOff = 0, silentExplorers = 0
        for user in r.users where user.started {
            let events = journeys[user.userID] ?? []
            let viewed = Set(events.filter { $0["event"] as? String == "onboarding.step_viewed" }.compactMap { $0["step"] as? String })
            if user.values["weightGoal"] == .string("maintain") {
                maintainers += 1
                XCTAssertFalse(viewed.contains("goalWeight"), user.userID)
                XCTAssertFalse(viewed.contains("weightPace"), user.userID)
            }
            if let freq = user.values["injectionFrequency"]?.stringValue, !["weekly", "biweekly"].contains(freq) {
                daily += 1
                XCTAssertFalse(viewed.contains("injectionDaySelection"), user.userID)
            }
            if user.flags["trackingStyleQuestion"] == false {
                flagOff += 1
                XCTAssertFalse(viewed.contains("trackingStyle"), user.userID)
            }
            XCTAssertFalse(viewed.contains("welcome"), "welcome has no telemetry")
            if user.lane == "explorers" { XCTAssertFalse(viewed.contains("medicationSelection")) }
            // The steps viewed are the expected path (without entry steps) up to where the user left.
            let tracked = user.expectedPath.filter { f.step($0)?.kind != .entry }
            XCTAssertEqual(user.viewedSteps, Array(tracked.prefix(user.viewedSteps.count)), user.userID)
            // …and the expected path is FunnelModel's for the values they gave.
            if user.completed {
                XCTAssertEqual(user.viewedSteps, tracked, user.userID)
                let ctx = ConditionContext(values: user.values, flags: user.flags.mapValues(JSONValue.bool))
                XCTAssertEqual(f.expectedPath(ctx).shownSteps, user.expectedPath, user.userID)
                let completed = events.filter { $0["event"] as? String == "onboarding.completed" }
                XCTAssertEqual(completed.count, 1)
                XCTAssertEqual(completed.first?["step"] as? String, tracked.last)
                if user.lane == "explorers" && user.flags["completionScreenForExplorers"] == false {
                    silentExplorers += 1
                    XCTAssertEqual(completed.first?["step"] as? String, "planPreview")
                    XCTAssertFalse(viewed.contains("completion"))
                }
            }
        }
        XCTAssertGreaterThan(maintainers, 50)
        XCTAssertGreaterThan(daily, 50)
        XCTAssertGreaterThan(flagOff, 50)
        XCTAssertGreaterThan(silentExplorers, 10)
    }

    func testJourneyEventSemantics() throws {
        let r = try simulate("glp1", users: 600)
        let journeys = journeys(r)
        var backs = 0, resumes = 0, failures = 0, prompts = 0
        for user in r.users where user.started {
            let events = journeys[user.userID] ?? []
            // started fires on sign-in entry, then a step_viewed of the same step.
            XCTAssertEqual(events.first?["event"] as? String, "onboarding.started")
            XCTAssertEqual(events.first?["step"] as? String, "signIn")
            XCTAssertEqual(events.dropFirst().first?["event"] as? String, "onboarding.step_viewed")
            XCTAssertEqual(events.dropFirst().first?["step"] as? String, "signIn")
            var lastViewed = ""
            var lastTime: Int64 = 0
            for (i, e) in events.enumerated() {
                let name = e["event"] as? String ?? ""
                let step = e["step"] as? String ?? ""
                let props = e["properties"] as? [String: Any] ?? [:]
                let t = Timestamp.parse(e["ts"] as? String ?? "")?.micros ?? 0
                switch name {
                case "onboarding.step_back":
                    backs += 1
                    XCTAssertEqual(step, lastViewed)
                    let next = i + 1 < events.count ? events[i + 1] : [:]
                    XCTAssertEqual(next["event"] as? String, "onboarding.step_viewed")
                    XCTAssertEqual(next["step"] as? String, props["to"] as? String)
                case "onboarding.step_viewed":
                    if step == lastViewed && t - lastTime > 5 * 60 * 1_000_000 { resumes += 1 }
                    lastViewed = step
                case "onboarding.sign_in_failed":
                    failures += 1
                    XCTAssertEqual(step, "signIn")
                    XCTAssertNotNil(props["reason"] as? String)
                    XCTAssertTrue(["apple", "google"].contains(props["provider"] as? String ?? ""))
                case "onboarding.permission_prompted":
                    prompts += 1
                    XCTAssertTrue(["notificationsPermission", "healthKitBenefits"].contains(step))
                    XCTAssertEqual(props["permission"] as? String, step == "healthKitBenefits" ? "healthKit" : "notifications")
                case "onboarding.permission_result":
                    XCTAssertNotNil(props["granted"] as? Bool)
                case "onboarding.step_completed":
                    if step == "journeyStatus" { XCTAssertNotNil(props["journeyStatus"] as? String) }
                    if step == "weight" { XCTAssertNotNil(props["weightKg"] as? Double) }
                default: break
                }
                lastTime = t
                let flags = (e["context"] as? [String: Any])?["flags"] as? [String: Bool]
                XCTAssertEqual(flags, user.flags)
            }
            if user.completed {
                XCTAssertTrue(events.contains { $0["event"] as? String == "onboarding.sign_in_succeeded" || $0["event"] as? String == "onboarding.signed_up" })
            }
        }
        XCTAssertGreaterThan(backs, 20)
        XCTAssertGreaterThan(resumes, 20)
        XCTAssertGreaterThan(failures, 20)
        XCTAssertGreaterThan(prompts, 300)
        // Flag rollouts: each flag on for some users, off for others.
        for name in ["trackingStyleQuestion", "completionScreenForExplorers"] {
            let on = r.users.filter { $0.flags[name] == true }.count
            XCTAssertTrue((100...500).contains(on), "\(name) on for \(on) of 600")
        }
        XCTAssertGreaterThan(Set(r.users.map(\.appVersion)).count, 2)
        XCTAssertEqual(Set(r.users.map(\.platform)), ["ios", "ipados"])
    }

    func testGenericRulesOnOtherFlows() throws {
        // Baby Basics: the invite lane never views addBaby; sign-up vs log-in from authPath.
        let baby = try simulate("baby-basics", users: 300)
        let bj = journeys(baby)
        for user in baby.users where user.started {
            let events = bj[user.userID] ?? []
            XCTAssertEqual(events.first?["step"] as? String, "serverUrl")
            if user.values["authPath"] == .string("invite") {
                XCTAssertFalse(user.viewedSteps.contains("addBaby"))
                XCTAssertFalse(events.contains { $0["event"] as? String == "onboarding.sign_in_succeeded" })
            }
            if user.values["authPath"] == .string("log_in") {
                XCTAssertFalse(events.contains { $0["event"] as? String == "onboarding.signed_up" })
                if user.values["hasChildren"] == .bool(true) { XCTAssertFalse(user.viewedSteps.contains("addBaby")) }
            }
        }
        // ScreenTime: the child lane's permission is familyControls; parents never see the paywall.
        let st = try simulate("screentime-rewards", users: 300)
        let sj = journeys(st)
        var skippedPairing = 0
        for user in st.users where user.started {
            let events = sj[user.userID] ?? []
            XCTAssertEqual(events.first?["step"] as? String, "welcome")
            if user.lane == "parent" { XCTAssertFalse(user.viewedSteps.contains("paywall")) }
            for e in events where e["event"] as? String == "onboarding.permission_prompted" {
                XCTAssertEqual((e["properties"] as? [String: Any])?["permission"] as? String, "familyControls")
            }
            let pairingViewed = events.contains { $0["step"] as? String == "qrPairing" && $0["event"] as? String == "onboarding.step_viewed" }
            let pairingDone = events.contains { $0["step"] as? String == "qrPairing" && $0["event"] as? String == "onboarding.step_completed" }
            if user.completed && pairingViewed && !pairingDone { skippedPairing += 1 }
        }
        XCTAssertGreaterThan(skippedPairing, 5, "the optional step is sometimes passed over")
        XCTAssertEqual(StepRoles.permissionName("permissions"), "notifications")
        XCTAssertEqual(StepRoles.permissionName("biometricPermission"), "biometric")
    }

    // MARK: what the collector writes

    func testCollectorFilesDuplicatesLateAndMembers() throws {
        let r = try simulate("glp1", users: 400, days: 4)
        let summary = try CollectorWriter(seed: 7).write(r.events, to: dir)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        XCTAssertEqual(names, summary.files.map { ($0 as NSString).lastPathComponent }.sorted())
        XCTAssertTrue(names.allSatisfy { $0.range(of: #"^events-\d{4}-\d{2}-\d{2}\.ndjson\.gz$"#, options: .regularExpression) != nil }, "\(names)")
        XCTAssertGreaterThanOrEqual(names.count, 4)

        let lines = try readLines(dir)
        XCTAssertEqual(lines.count, summary.lines)
        XCTAssertEqual(summary.lines, r.events.count + summary.duplicates)
        // ~1 % re-sent duplicates, identical lines.
        var counts: [String: Int] = [:]
        for l in lines { counts[l.line, default: 0] += 1 }
        XCTAssertEqual(counts.count, r.events.count)
        let repeated = counts.values.reduce(0) { $0 + $1 - 1 }
        XCTAssertEqual(repeated, summary.duplicates)
        XCTAssertGreaterThan(Double(repeated) / Double(r.events.count), 0.005)
        XCTAssertLessThan(Double(repeated) / Double(r.events.count), 0.02)
        // Late events: in the file of the day after their UTC day.
        var late = 0
        for l in lines {
            guard let ts = Self.object(l.line)?["ts"] as? String, let t = Timestamp.parse(ts) else { return XCTFail(l.line) }
            let fileDay = String(l.file.dropFirst("events-".count).prefix(10))
            if fileDay != t.utcDay {
                late += 1
                XCTAssertEqual(Timestamp.parse(fileDay).map { $0.micros - 86_400_000_000 }, Timestamp.parse(t.utcDay)?.micros)
            }
        }
        XCTAssertGreaterThan(late, 0)
        // Multi-member gzip, batches out of order within a day.
        var membersSeen = 0
        var outOfOrder = false
        for name in names {
            let stream = try ByteStream(path: dir + "/" + name)
            var buf = [UInt8](repeating: 0, count: 1 << 16)
            while try buf.withUnsafeMutableBytes({ try stream.read(into: $0) }) > 0 {}
            membersSeen += stream.members
            let times = lines.filter { $0.file == name }.compactMap { Self.object($0.line)?["ts"] as? String }.compactMap { Timestamp.parse($0)?.micros }
            if zip(times, times.dropFirst()).contains(where: { $0 > $1 + 3_600_000_000 }) { outOfOrder = true }
        }
        XCTAssertEqual(membersSeen, summary.members)
        XCTAssertGreaterThan(summary.members, names.count, "several members per file")
        XCTAssertTrue(outOfOrder, "batches are written out of order")
    }
}
