import Foundation
import FunnelModel
import TestSupport
import XCTest
@testable import Flows

final class BuiltInFlowsTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testFiveBuiltInsOnePerSeed() {
        XCTAssertEqual(Flows.builtIn.map(\.id), ["baby-basics", "glp1", "screentime-rewards", "shieldai", "trendy"])
        XCTAssertEqual(Flows.builtIn.count, BuiltInFlowSources.files.count, "every generated text decodes")
    }

    func testEveryBuiltInPassesTheChecker() throws {
        for file in Flows.builtInSources {
            XCTAssertEqual(FlowChecker.check(data: Data(file.json.utf8)), [], file.name)
        }
        for flow in Flows.builtIn {
            XCTAssertEqual(FlowChecker.check(flow), [], flow.id)
            XCTAssertNotNil(flow.description, "\(flow.id) documents its choices")
        }
    }

    /// A key's values are known when every step collecting it lists them.
    func testKnownValuesOfACollectedKey() throws {
        let glp1 = try XCTUnwrap(Flows.builtIn.first { $0.id == "glp1" })
        XCTAssertEqual(glp1.knownValues(of: "weightGoal"), ["gain", "lose", "maintain"])
        XCTAssertEqual(glp1.knownValues(of: "journeyStatus"), ["about_to_start", "already_on_glp1"])
        XCTAssertNil(glp1.knownValues(of: "goalWeightKg"), "a number: any value")
        XCTAssertNil(glp1.knownValues(of: "noSuchKey"))
    }

    func testGeneratedSourceIsNotStale() throws {
        XCTAssertEqual(try staleGenerated(Flows.builtInSources, match: Self.root.appendingPathComponent("schemas/flows")), [],
                       "run scripts/gen-builtin-flows")
    }

    func testGLP1LanesHoldEveryStepInTheSeedsOrder() throws {
        let flow = try FlowCatalog().flow("glp1")
        XCTAssertEqual(flow.laneKey, "journeyStatus")
        XCTAssertEqual(flow.lanes.map(\.id), ["explorers", "glp1"])
        XCTAssertEqual(flow.lanes[0].when, "journeyStatus == about_to_start")
        XCTAssertEqual(flow.lanes[1].when, "journeyStatus == already_on_glp1")
        XCTAssertEqual(flow.lanes[1].steps.map(\.id), [
            "welcome", "signIn", "journeyStatus", "journeyAffirmation", "medicationSelection", "doseSelection",
            "frequencySelection", "notificationsPermission", "injectionDaySelection", "scheduleTime",
            "lastInjectionDate", "genderSelection", "birthdayPicker", "height", "weight", "weightGoal", "goalWeight",
            "weightPace", "weightGoalAffirmation", "activityLevel", "healthKitBenefits", "trackingStyle",
            "trackingAffirmation", "planPreview", "completion",
        ])
        XCTAssertEqual(flow.lanes[0].steps.map(\.id), [
            "welcome", "signIn", "journeyStatus", "journeyAffirmation", "genderSelection", "birthdayPicker", "height",
            "weight", "weightGoal", "goalWeight", "weightPace", "weightGoalAffirmation", "activityLevel",
            "notificationsPermission", "healthKitBenefits", "trackingStyle", "trackingAffirmation", "planPreview",
            "completion",
        ])
        XCTAssertEqual(flow.lanes[0].steps.last, FlowDefinition.LaneStep(id: "completion", flag: "completionScreenForExplorers"))
        XCTAssertEqual(flow.lanes[1].steps.last, FlowDefinition.LaneStep(id: "completion"))
        XCTAssertEqual(flow.step("goalWeight")?.when, "weightGoal != maintain")
        XCTAssertEqual(flow.step("weightPace")?.when, "weightGoal != maintain")
        XCTAssertEqual(flow.step("injectionDaySelection")?.when, "injectionFrequency in [weekly, biweekly]")
        XCTAssertEqual(flow.step("trackingStyle")?.flag, "trackingStyleQuestion")
        XCTAssertEqual(flow.step("trackingAffirmation")?.flag, "trackingStyleQuestion")
        XCTAssertEqual(flow.step("planPreview")?.kind, .terminal)
        XCTAssertEqual(flow.step("completion")?.kind, .terminal)
        XCTAssertEqual(flow.step("welcome")?.kind, .entry)
        XCTAssertTrue(flow.step("welcome")?.note?.contains("No telemetry") ?? false)
        XCTAssertEqual(flow.step("journeyStatus")?.collects.first?.values ?? [], ["about_to_start", "already_on_glp1"])
        XCTAssertEqual(flow.step("weightGoal")?.collects.first?.values ?? [], ["lose", "maintain", "gain"])
        XCTAssertEqual(flow.step("frequencySelection")?.collects.first?.values ?? [], ["daily", "weekly", "biweekly", "custom", "not_sure"])
        XCTAssertEqual(flow.flags.map(\.id), ["trackingStyleQuestion", "completionScreenForExplorers"])
        XCTAssertEqual(flow.flagDefaults, ["trackingStyleQuestion": false, "completionScreenForExplorers": false])
        XCTAssertEqual(flow.cohort("glp1")?.where, "journeyStatus == already_on_glp1")
        XCTAssertEqual(flow.cohort("explorers")?.where, "journeyStatus == about_to_start")
        XCTAssertEqual(flow.lanes(of: "medicationSelection"), ["glp1"])
        XCTAssertEqual(flow.lanes(of: "notificationsPermission"), ["explorers", "glp1"])
    }

    func testOtherSeedsShapes() throws {
        let catalog = try FlowCatalog()
        let baby = try catalog.flow("baby-basics")
        XCTAssertEqual(baby.lanes.map(\.id), ["create_account", "invite", "log_in"])
        XCTAssertFalse(baby.lanes[1].steps.contains { $0.id == "addBaby" }, "invite skips add baby")
        XCTAssertEqual(baby.cohorts.map(\.id), ["create_account", "invite", "log_in"])
        let screentime = try catalog.flow("screentime-rewards")
        XCTAssertEqual(screentime.lanes.map { $0.steps.count }, [5, 6])
        XCTAssertEqual(screentime.step("qrPairing")?.optional, true)
        XCTAssertEqual(screentime.cohorts.map(\.id), ["parent", "child"])
        let shield = try catalog.flow("shieldai")
        XCTAssertEqual(shield.step("inviteFamily")?.optional, true)
        XCTAssertEqual(shield.lanes[0].steps.map(\.id).last, "setupComplete")
        let trendy = try catalog.flow("trendy")
        XCTAssertEqual(trendy.lanes[0].steps.map(\.id), ["welcome", "auth", "createEventType", "logFirstEvent", "permissions", "finish"])
    }

    // MARK: GLP-1 expected paths for concrete answers

    func glp1Path(_ values: [String: String], flags: [String: Bool] = [:]) throws -> ExpectedPath {
        let flow = try FlowCatalog().flow("glp1")
        let ctx = ConditionContext(values: values.mapValues(JSONValue.string), flags: flags.mapValues(JSONValue.bool))
        return flow.expectedPath(ctx)
    }

    func testMaintainSkipsGoalWeightAndPace() throws {
        let path = try glp1Path(["journeyStatus": "already_on_glp1", "weightGoal": "maintain", "injectionFrequency": "weekly"])
        XCTAssertEqual(path.lane, "glp1")
        XCTAssertEqual(path.entry("goalWeight")?.status, .skipped("weightGoal = maintain"))
        XCTAssertEqual(path.entry("weightPace")?.status, .skipped("weightGoal = maintain"))
        XCTAssertTrue(path.shownSteps.contains("injectionDaySelection"))
        let lose = try glp1Path(["journeyStatus": "already_on_glp1", "weightGoal": "lose", "injectionFrequency": "weekly"])
        XCTAssertTrue(lose.shownSteps.contains("goalWeight"))
        XCTAssertTrue(lose.shownSteps.contains("weightPace"))
    }

    func testDailySkipsInjectionDay() throws {
        let path = try glp1Path(["journeyStatus": "already_on_glp1", "injectionFrequency": "daily", "weightGoal": "lose"])
        XCTAssertEqual(path.entry("injectionDaySelection")?.status, .skipped("injectionFrequency = daily"))
        let biweekly = try glp1Path(["journeyStatus": "already_on_glp1", "injectionFrequency": "biweekly", "weightGoal": "lose"])
        XCTAssertEqual(biweekly.entry("injectionDaySelection")?.status, .shown)
    }

    func testFlagOffSkipsTrackingStyle() throws {
        let off = try glp1Path(["journeyStatus": "about_to_start", "weightGoal": "lose"])
        XCTAssertEqual(off.entry("trackingStyle")?.status, .skipped("flag trackingStyleQuestion off"))
        XCTAssertEqual(off.entry("trackingAffirmation")?.status, .skipped("flag trackingStyleQuestion off"))
        let on = try glp1Path(["journeyStatus": "about_to_start", "weightGoal": "lose"], flags: ["trackingStyleQuestion": true])
        XCTAssertEqual(on.entry("trackingStyle")?.status, .shown)
    }

    func testExplorersEndOnPlanPreviewUnlessCompletionScreenFlag() throws {
        let off = try glp1Path(["journeyStatus": "about_to_start", "weightGoal": "gain"])
        XCTAssertEqual(off.lane, "explorers")
        XCTAssertEqual(off.shownSteps.last, "planPreview")
        XCTAssertEqual(off.entry("completion")?.status, .skipped("flag completionScreenForExplorers off"))
        let on = try glp1Path(["journeyStatus": "about_to_start", "weightGoal": "gain"], flags: ["completionScreenForExplorers": true])
        XCTAssertEqual(on.shownSteps.suffix(2), ["planPreview", "completion"])
        // The flag is for explorers only: glp1 users always end on completion.
        let glp1 = try glp1Path(["journeyStatus": "already_on_glp1", "weightGoal": "gain", "injectionFrequency": "daily"])
        XCTAssertEqual(glp1.shownSteps.last, "completion")
    }

    func testNotificationsPermissionPlacePerLane() throws {
        let glp1 = try glp1Path(["journeyStatus": "already_on_glp1", "weightGoal": "lose", "injectionFrequency": "weekly"]).shownSteps
        XCTAssertEqual(glp1.firstIndex(of: "notificationsPermission"), (glp1.firstIndex(of: "frequencySelection") ?? -5) + 1)
        let explorers = try glp1Path(["journeyStatus": "about_to_start", "weightGoal": "lose"]).shownSteps
        XCTAssertEqual(explorers.firstIndex(of: "notificationsPermission"), (explorers.firstIndex(of: "activityLevel") ?? -5) + 1)
    }
}
