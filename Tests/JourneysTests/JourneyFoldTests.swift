import XCTest
import Foundation
import FunnelModel
import Flows
import EventStore
@testable import Projections
import TestSupport
@testable import Journeys

final class JourneyFoldTests: XCTestCase {
    /// Every stored journey of every sample flow knows the seq of its last event (fold
    /// order) on its current step: the one a filter of the user's events finds.
    func testLastSeqOnCurrentStepIsTheUsersLastEventThere() throws {
        let flows = ["glp1", "baby-basics", "screentime-rewards", "shieldai", "trendy", "edge"]
        let store = try ingest(flows.map { repositoryRoot.appendingPathComponent("sample-data/\($0)").path }, into: temporaryStorePath())
        var known = 0, afterAView = 0
        for definition in Flows.builtIn {
            for j in try ProjectionStore.journeys(flow: definition.id, definition: definition, store: store) {
                let events = try store.events(user: j.userID, flow: definition.id)
                let last = events.last { $0.event.step != nil && $0.event.step == j.currentStep }
                XCTAssertEqual(j.lastSeqOnCurrentStep, last?.seq, "\(definition.id) \(j.userID)")
                if let last {
                    known += 1
                    if last.event.known != .stepViewed { afterAView += 1 }
                }
            }
        }
        XCTAssertGreaterThan(known, 1_000)
        // Most journeys' last event on their step is not the view that made it current.
        XCTAssertGreaterThan(afterAView, 300)
    }

    /// Every stored journey of every sample flow (folded input by input, each resuming the
    /// last) holds its view runs: its step views in fold order, a run per step until another
    /// step is viewed, as `funnel paths` walks them; the views after a silence of more than
    /// ten minutes since the view before (the longest gap between two events in between),
    /// and its last event.
    func testViewRunsAreTheUsersStepViewsInFoldOrder() throws {
        let flows = ["glp1", "baby-basics", "screentime-rewards", "shieldai", "trendy", "edge"]
        let store = try ingest(flows.map { repositoryRoot.appendingPathComponent("sample-data/\($0)").path }, into: temporaryStorePath())
        var runs = 0, again = 0, silent = 0
        for definition in Flows.builtIn {
            for j in try ProjectionStore.journeys(flow: definition.id, definition: definition, store: store) {
                let events = try store.events(user: j.userID, flow: definition.id)
                var want: [Journey.ViewRun] = []
                for i in events.foldOrderIndices where events[i].event.known == .stepViewed {
                    guard let step = events[i].event.step, want.last?.step != step else { continue }
                    want.append(Journey.ViewRun(step: step, at: events[i].event.time))
                }
                XCTAssertEqual(j.viewRuns, want, "\(definition.id) \(j.userID)")
                var silences: [Journey.Silence] = []
                var previous: Int64?, longest: Int64 = 0, runsSoFar = 0, lastStep: String?
                for i in events.foldOrderIndices {
                    let t = events[i].event.time.micros
                    if let previous, runsSoFar > 0 { longest = max(longest, t - previous) }
                    previous = t
                    guard events[i].event.known == .stepViewed, let step = events[i].event.step else { continue }
                    if longest > 600_000_000 {
                        silences.append(.init(run: step != lastStep ? runsSoFar : runsSoFar - 1, startsRun: step != lastStep, micros: longest))
                    }
                    longest = 0
                    if step != lastStep { runsSoFar += 1 }
                    lastStep = step
                }
                XCTAssertEqual(j.silences, silences, "\(definition.id) \(j.userID)")
                XCTAssertEqual(j.silenceSinceView, longest, "\(definition.id) \(j.userID)")
                XCTAssertEqual(j.lastSeq, events.foldOrderIndices.last.map { events[$0].seq }, "\(definition.id) \(j.userID)")
                silent += silences.count
                runs += want.count
                if Set(want.map(\.step)).count < want.count { again += 1 }
            }
        }
        XCTAssertGreaterThan(runs, 5_000)
        XCTAssertGreaterThan(silent, 100)
        // Some users view a step again after another: a run of it each time.
        XCTAssertGreaterThan(again, 0)
    }

    func testMaintainUserSkipsGoalWeightAndFlagOffSkipsTrackingStyle() throws {
        var b = JourneyBuilder("u-1", flags: ["completionScreenForExplorers": .bool(false)])
        b.add(0, "onboarding.started", "signIn")
        b.view(0, "signIn")
        b.add(1, "sign_in_succeeded", "signIn", ["provider": .string("apple")])
        b.view(1, "journeyStatus")
        b.answer(2, "journeyStatus", ["journeyStatus": .string("about_to_start")])
        b.view(2, "weightGoal")
        b.answer(3, "weightGoal", ["weightGoal": .string("maintain")])
        b.view(4, "planPreview")
        b.add(5, "onboarding.completed", "planPreview")
        let j = try XCTUnwrap(JourneyFold.journey(of: b.events, definition: miniFlow))
        XCTAssertEqual(j.lane, "explorers")
        XCTAssertEqual(j.laneReason, "journeyStatus = about_to_start")
        XCTAssertEqual(j.currentStep, "planPreview")
        XCTAssertEqual(j.secondsToComplete, 300)
        XCTAssertEqual(j.startStep, "signIn")
        let status = Dictionary(uniqueKeysWithValues: j.path.map { ($0.step, $0.status) })
        XCTAssertEqual(status["welcome"], .beforeStart)
        XCTAssertEqual(status["goalWeight"], .skipped)
        XCTAssertEqual(j.pathStep("goalWeight")?.reason, "weightGoal = maintain")
        XCTAssertEqual(j.pathStep("trackingStyle")?.reason, "flag trackingStyleQuestion off")
        XCTAssertEqual(j.pathStep("completion")?.reason, "flag completionScreenForExplorers off")
        XCTAssertEqual(j.pathStep("planPreview")?.eligible, true)
        XCTAssertEqual(j.pathStep("goalWeight")?.eligible, false)
        XCTAssertEqual(j.pathStep("welcome")?.eligible, false)
        XCTAssertEqual(j.deviations, [])
        XCTAssertEqual(j.visit("journeyStatus")?.secondsOnStep, 60)
        XCTAssertEqual(j.state(asOf: b.start.adding(seconds: 86_400 * 3), idleSeconds: 86_400), .completed)
    }

    func testDropAtConditionalStepAndEligibility() throws {
        var b = JourneyBuilder("u-2", flags: ["trackingStyleQuestion": .bool(true)])
        b.add(0, "onboarding.started", "signIn")
        b.view(0, "signIn")
        b.view(1, "journeyStatus")
        b.answer(2, "journeyStatus", ["journeyStatus": .string("already_on_glp1")])
        b.view(2, "medication")
        b.answer(3, "medication", ["medication": .string("ozempic")])
        b.view(3, "weightGoal")
        b.answer(4, "weightGoal", ["weightGoal": .string("lose")])
        b.view(4, "goalWeight")
        let j = try XCTUnwrap(JourneyFold.journey(of: b.events, definition: miniFlow))
        XCTAssertEqual(j.lane, "glp1")
        XCTAssertEqual(j.currentStep, "goalWeight")
        XCTAssertEqual(j.pathStep("goalWeight")?.eligible, true)
        XCTAssertEqual(j.pathStep("trackingStyle")?.status, .shown)
        // trackingStyle follows goalWeight on the path and goalWeight was reached: eligible, not reached.
        XCTAssertEqual(j.pathStep("trackingStyle")?.eligible, true)
        XCTAssertEqual(j.pathStep("trackingStyle")?.reached, false)
        XCTAssertEqual(j.pathStep("planPreview")?.eligible, false)
        let asOf = b.start.adding(seconds: 86_400 * 2)
        XCTAssertEqual(j.state(asOf: asOf, idleSeconds: 86_400), .abandoned)
        XCTAssertEqual(j.state(asOf: b.start.adding(seconds: 3600), idleSeconds: 86_400), .inProgress)
    }

    func testUnansweredLaneIsUndeterminedAndOutOfOrderArrivalFoldsByEventTime() throws {
        var b = JourneyBuilder("u-3")
        b.view(1, "journeyStatus")          // arrives first, happened second
        b.add(0, "onboarding.started", "signIn")
        b.view(0, "signIn")
        let j = try XCTUnwrap(JourneyFold.journey(of: b.events, definition: miniFlow))
        XCTAssertNil(j.lane)
        XCTAssertEqual(j.laneReason, "journeyStatus not answered yet")
        XCTAssertEqual(j.currentStep, "journeyStatus")
        XCTAssertEqual(j.pathStep("journeyStatus")?.eligible, true)
        XCTAssertEqual(j.pathStep("weightGoal")?.status, .undetermined)
        XCTAssertEqual(j.visit("signIn")?.secondsOnStep, 60)
    }

    func testDeviationsAndUnplannedEvents() throws {
        var b = JourneyBuilder("u-4")
        b.add(0, "onboarding.started", "signIn")
        b.view(0, "signIn")
        b.answer(1, "journeyStatus", ["journeyStatus": .string("already_on_glp1")])
        b.view(2, "weightGoal")            // medication never seen
        b.view(3, "mysteryStep")
        b.add(4, "onboarding.rage_tapped", "weightGoal")
        let j = try XCTUnwrap(JourneyFold.journey(of: b.events, definition: miniFlow))
        XCTAssertEqual(j.unplanned, 2)
        XCTAssertTrue(j.deviations.contains("unknown step mysteryStep"), "\(j.deviations)")
        XCTAssertTrue(j.deviations.contains("unknown event onboarding.rage_tapped"), "\(j.deviations)")
        XCTAssertTrue(j.deviations.contains("weightGoal seen without medication before it"), "\(j.deviations)")
    }

    func testFoldNotesExplainEachEvent() {
        var b = JourneyBuilder("u-5")
        b.add(0, "onboarding.started", "signIn")
        b.view(0, "signIn")
        b.add(1, "onboarding.sign_in_failed", "signIn", ["provider": .string("google"), "reason": .string("cancelled")])
        b.view(2, "journeyStatus")
        b.add(3, "onboarding.step_back", "journeyStatus", ["to": .string("signIn")])
        var fold = JourneyFold(userID: "u-5", flow: "mini", definition: miniFlow)
        let notes = b.events.map { fold.apply($0) }
        XCTAssertEqual(notes[0], ["started on signIn"])
        XCTAssertEqual(notes[1], ["→ signIn"])
        XCTAssertEqual(notes[2], ["sign-in failed with google: cancelled"])
        XCTAssertEqual(notes[3], ["signIn → journeyStatus"])
        XCTAssertEqual(notes[4], ["back from journeyStatus to signIn"])
        let j = fold.finish()
        XCTAssertEqual(j.signInFailures, 1)
        XCTAssertEqual(j.backNavigations, 1)
    }

    /// Per step, the latest permission prompt or answer and every sign-in failure's reason;
    /// a fold resumed midway keeps them as one fold over every event does.
    func testPromptOutcomesPerStep() throws {
        var b = JourneyBuilder("u-7")
        b.add(0, "onboarding.started", "signIn")
        b.view(0, "signIn")
        b.add(1, "onboarding.sign_in_failed", "signIn", ["provider": .string("google"), "reason": .string("network")])
        b.add(2, "sign_in_failed", "signIn", ["provider": .string("google")])
        b.add(3, "onboarding.sign_in_failed", "signIn", ["provider": .string("apple"), "reason": .string("network")])
        b.add(4, "onboarding.sign_in_succeeded", "signIn", ["provider": .string("apple")])
        b.view(5, "notifications")
        b.add(6, "onboarding.permission_prompted", "notifications", ["permission": .string("notifications")])
        b.add(7, "onboarding.permission_result", "notifications", ["permission": .string("notifications"), "granted": .bool(false)])
        b.view(8, "camera")
        b.add(9, "onboarding.permission_result", "camera", ["granted": .bool(true)])
        b.add(10, "onboarding.permission_prompted", "camera", ["permission": .string("camera")])
        let j = try XCTUnwrap(JourneyFold.journey(of: b.events, definition: nil))
        XCTAssertEqual(j.promptOutcomes, [
            "signIn": ["sign_in_failed reason=network", "sign_in_failed reason=(none)"],
            "notifications": ["permission_result granted=false"],
            "camera": ["permission_prompted"],
        ])
        let first = try XCTUnwrap(JourneyFold.fold(Array(b.events.prefix(4)), definition: nil))
        var resumed = JourneyFold(resuming: first.finish(), first.resume, definition: nil)
        for e in b.events.dropFirst(4) { resumed.apply(e, explain: false) }
        XCTAssertEqual(resumed.finish().promptOutcomes, j.promptOutcomes)
    }

    func testUntilCutsTheFold() throws {
        var b = JourneyBuilder("u-6")
        b.add(0, "onboarding.started", "signIn")
        b.view(0, "signIn")
        b.view(10, "journeyStatus")
        let j = try XCTUnwrap(JourneyFold.journey(of: b.events, definition: miniFlow, until: b.start.adding(seconds: 300)))
        XCTAssertEqual(j.currentStep, "signIn")
        XCTAssertEqual(j.events, 2)
        XCTAssertNil(JourneyFold.journey(of: b.events, definition: miniFlow, until: b.start.adding(seconds: -1)))
    }
}

/// Expected paths kept by the part of the context they read give what working each out gives,
/// for every built-in flow and many contexts; values no condition names share one path.
final class ExpectedPathsTests: XCTestCase {
    func testKeptPathsAreTheOnesWorkedOutForEachContext() {
        for flow in Flows.builtIn {
            let paths = ExpectedPaths(flow)
            let keys = flow.conditionKeys
            // Every value a step collects, one answer per key at a time, with flags on and off.
            var contexts: [ConditionContext] = [ConditionContext()]
            for step in flow.steps {
                for c in step.collects {
                    for v in c.values ?? [] {
                        var ctx = contexts[contexts.count / 2]
                        ctx.values[c.key] = .string(v)
                        contexts.append(ctx)
                    }
                }
            }
            for base in contexts where contexts.count < 400 {
                for on in [true, false] {
                    var ctx = base
                    for f in flow.flags { ctx.flags[f.id] = .bool(on) }
                    ctx.appVersion = on ? "3.3.0" : "3.1.0"
                    ctx.startDate = on ? "2026-10-02" : "2026-09-30"
                    contexts.append(ctx)
                }
            }
            for ctx in contexts {
                var noisy = ctx
                noisy.values["notInAnyCondition"] = .number("\(contexts.count)")
                XCTAssertEqual(paths.path(for: ctx), flow.expectedPath(ctx), flow.id)
                XCTAssertEqual(paths.path(for: noisy), flow.expectedPath(ctx), flow.id)
            }
            XCTAssertFalse(keys.contains("notInAnyCondition"))
        }
        let glp1 = Flows.builtIn.first { $0.id == "glp1" }
        XCTAssertEqual(glp1.map { $0.conditionKeys.contains("journeyStatus") }, true)
    }
}
