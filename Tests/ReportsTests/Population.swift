import Foundation
import TestSupport
import FunnelModel
import Projections
@testable import Reports
import Journeys

/// A realistic, deterministic population on the mini flow: a few hundred users over three weeks
/// with both lanes, the goalWeight condition, both flags, drop-offs at every step, app kills
/// with resumes, and some users still in progress at as-of.
struct Population {
    static let start = Timestamp(micros: 1_790_000_000_000_000)

    /// Deterministic pseudo-random numbers (SplitMix64).
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
        mutating func chance(_ p: Double) -> Bool { unit() < p }
        /// Seconds spent on a screen: a skewed distribution around `typical`.
        mutating func dwell(_ typical: Double) -> Double {
            let u = max(unit(), 1e-9)
            return typical * 0.4 + typical * 0.6 * -log(u)
        }
    }

    let users: Int
    let seed: UInt64
    /// Share of users with the trackingStyleQuestion flag on.
    let trackingFlagShare: Double

    init(users: Int = 420, seed: UInt64 = 7, trackingFlagShare: Double = 0.5) {
        self.users = users
        self.seed = seed
        self.trackingFlagShare = trackingFlagShare
    }

    /// The latest start is 3 weeks in; as-of is 6 hours after it, so the last starters who
    /// stopped are still in progress.
    var asOf: Timestamp { Population.start.adding(seconds: Double(users - 1) * 4320 + 6 * 3600) }

    func journeys(definition: FlowDefinition = miniFlow) -> [Journey] {
        usersEvents().compactMap { JourneyFold.journey(of: $0, definition: definition) }
    }

    /// Every user's events, in arrival order (users in order of their start).
    func usersEvents() -> [[RecordedEvent]] {
        var rng = Random(state: seed)
        var out: [[RecordedEvent]] = []
        var seq: Int64 = 0
        for i in 0..<users {
            let user = "u\(i)"
            var events: [RecordedEvent] = []
            var t = Population.start.adding(seconds: Double(i) * 4320 + rng.unit() * 600)
            let flags: [String: JSONValue] = [
                "trackingStyleQuestion": .bool(rng.chance(trackingFlagShare)),
                "completionScreenForExplorers": .bool(rng.chance(0.3)),
            ]
            let version = i % 3 == 0 ? "3.2.0" : "3.3.0"
            let platform = i % 4 == 1 ? "ipados" : "ios"
            func emit(_ name: String, _ step: String?, _ props: [String: JSONValue] = [:]) {
                seq += 1
                events.append(RecordedEvent(
                    seq: seq,
                    event: Event(id: "\(user)-\(seq)", name: name, userID: user, time: t, flow: "mini", step: step,
                                 properties: props, context: EventContext(appVersion: version, platform: platform, flags: flags)),
                    line: "{}"))
            }
            func wait(_ typical: Double) {
                var s = rng.dwell(typical)
                if rng.chance(0.04) { s += 1800 + rng.unit() * 10_800 } // app killed, resumed later
                t = t.adding(seconds: s)
            }
            func view(_ step: String) { emit("onboarding.step_viewed", step) }
            defer { out.append(events) }
            emit("onboarding.started", "signIn")
            view("signIn")
            wait(40)
            if rng.chance(0.07) { continue }
            view("journeyStatus")
            wait(15)
            if rng.chance(0.05) { continue }
            let onGLP1 = rng.chance(0.6)
            emit("onboarding.step_completed", "journeyStatus",
                 ["journeyStatus": .string(onGLP1 ? "already_on_glp1" : "about_to_start")])
            if onGLP1 {
                view("medication")
                wait(35)
                if rng.chance(0.06) { continue }
                emit("onboarding.step_completed", "medication", ["medication": .string("semaglutide")])
            }
            view("weightGoal")
            wait(12)
            if rng.chance(0.03) { continue }
            let goal = rng.unit()
            let goalText = goal < 0.62 ? "lose" : goal < 0.9 ? "maintain" : "gain"
            emit("onboarding.step_completed", "weightGoal", ["weightGoal": .string(goalText)])
            if goalText != "maintain" {
                view("goalWeight")
                wait(50)
                if rng.chance(onGLP1 ? 0.16 : 0.22) { continue }
                emit("onboarding.step_completed", "goalWeight", ["goalWeightKg": .number("72")])
            }
            if flags["trackingStyleQuestion"] == .bool(true) {
                view("trackingStyle")
                wait(20)
                if rng.chance(0.05) { continue }
                emit("onboarding.step_completed", "trackingStyle")
            }
            view("planPreview")
            wait(60)
            if rng.chance(0.08) { continue }
            if !onGLP1 && flags["completionScreenForExplorers"] != .bool(true) {
                emit("onboarding.completed", "planPreview")
                continue
            }
            view("completion")
            wait(10)
            if rng.chance(0.02) { continue }
            emit("onboarding.completed", "completion")
        }
        return out
    }

    /// The report's top drop-offs explained, as the HTML report's section explains them.
    func explanations(of report: FunnelReport, definition: FlowDefinition = miniFlow) throws -> [DropoffExplanation] {
        let all = usersEvents()
        // Each user's events in fold order.
        let byUser = Dictionary(all.compactMap { e in e.first.map { ($0.event.userID, e.sorted(by: RecordedEvent.foldOrder)) } },
                                uniquingKeysWith: { a, _ in a })
        let journeys = all.compactMap { JourneyFold.journey(of: $0, definition: definition) }
        let asOf = self.asOf
        return try DropoffExplanation.explanations(of: report, definition: definition, query: ReportQuery(asOf: asOf), limit: 3,
                                                   glances: { request, blank in
            // The journeys in three shares, each added into a copy of the blank and merged in
            // share order, as a store reads them on threads.
            let parts = 3
            var shares = Array(repeating: blank, count: parts)
            for (k, j) in journeys.enumerated() { shares[k * parts / max(journeys.count, 1)].add(JourneyGlance(j, request: request)) }
            return shares.dropFirst().reduce(into: shares[0]) { $0.merge($1) }
        },
                                                   lastEvents: { step, dropped in
            var last: [String: RecordedEvent] = [:]
            for user in dropped.map(\.user) {
                last[user] = byUser[user]?.last { $0.event.step == step && $0.event.time <= asOf }
            }
            return last
        })
    }

    func report(cohort: String? = nil, by: ReportQuery.Dimension? = nil, definition: FlowDefinition = miniFlow) -> FunnelReport {
        let c = cohort.flatMap { definition.cohort($0) }
        return ReportBuilder(definition: definition).report(journeys(definition: definition),
                                                            query: ReportQuery(cohort: c, asOf: asOf, by: by))
    }
}
