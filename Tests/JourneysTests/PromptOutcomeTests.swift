import XCTest
@testable import Journeys

/// What a step's prompts came to: the latest permission outcome replaces the ones before it,
/// each sign-in failure reason is kept once in order of first occurrence, and outcomes are
/// told apart by their event's name at their start.
final class PromptOutcomeTests: XCTestCase {
    func testTheLatestPermissionOutcomeAndEachSignInFailureOnce() {
        var outcomes: [String: [String]] = [:]
        PromptOutcome.add(PromptOutcome.signInFailed(reason: "network"), on: "signIn", to: &outcomes)
        PromptOutcome.add(PromptOutcome.permissionPrompted, on: "signIn", to: &outcomes)
        PromptOutcome.add(PromptOutcome.signInFailed(reason: nil), on: "signIn", to: &outcomes)
        PromptOutcome.add(PromptOutcome.signInFailed(reason: "network"), on: "signIn", to: &outcomes)
        PromptOutcome.add(PromptOutcome.permissionResult(granted: "false"), on: "signIn", to: &outcomes)
        PromptOutcome.add(PromptOutcome.permissionPrompted, on: "notifications", to: &outcomes)
        PromptOutcome.add(PromptOutcome.permissionResult(granted: "maybe"), on: "notifications", to: &outcomes)
        XCTAssertEqual(outcomes, [
            "signIn": ["sign_in_failed reason=network", "sign_in_failed reason=(none)", "permission_result granted=false"],
            "notifications": ["permission_result granted=maybe"],
        ])
    }

    func testOutcomesAreToldApartByTheirStart() {
        XCTAssertTrue(PromptOutcome.isPermission("permission_prompted"))
        XCTAssertTrue(PromptOutcome.isPermission("permission_result granted=true"))
        XCTAssertFalse(PromptOutcome.isPermission("sign_in_failed reason=permission_denied"))
        XCTAssertFalse(PromptOutcome.isPermission("permission"))
        XCTAssertFalse(PromptOutcome.isPermission(""))
        XCTAssertTrue(PromptOutcome.isSignInFailure("sign_in_failed reason=network"))
        XCTAssertTrue(PromptOutcome.isSignInFailure("sign_in_failed reason=é"))
        XCTAssertFalse(PromptOutcome.isSignInFailure("sign_in_failed"))
        XCTAssertFalse(PromptOutcome.isSignInFailure("permission_result granted=sign_in_failed "))
    }
}
