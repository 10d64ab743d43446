/// The outcomes `Journey.promptOutcomes` keeps per step, as `event key=value` text: what a
/// permission prompt or a sign-in came to on that step.
///
/// - `permission_prompted`: asked, no answer since (the latest permission event on the step);
/// - `permission_result granted=false`: the latest answer (a later prompt or answer replaces it);
/// - `sign_in_failed reason=network`: a sign-in failed for this reason (every reason is kept,
///   in order of first occurrence; `reason=(none)` when the event gives none).
public enum PromptOutcome {
    public static let permissionPrompted = "permission_prompted"

    public static func permissionResult(granted: String?) -> String {
        // The two usual answers' texts are built once, not per event.
        switch granted {
        case "true": return grantedTrue
        case "false": return grantedFalse
        default: return "permission_result granted=\(granted ?? "(none)")"
        }
    }

    private static let grantedTrue = "permission_result granted=true"
    private static let grantedFalse = "permission_result granted=false"

    public static func signInFailed(reason: String?) -> String {
        "sign_in_failed reason=\(reason ?? "(none)")"
    }

    /// Whether an outcome is one of the permission outcomes (one per step: the latest).
    public static func isPermission(_ outcome: String) -> Bool {
        outcome.hasPrefix("permission_")
    }

    /// Whether an outcome is a sign-in failure.
    public static func isSignInFailure(_ outcome: String) -> Bool {
        outcome.hasPrefix("sign_in_failed ")
    }

    /// Adds `outcome` on `step`: a permission outcome replaces the step's earlier one, a
    /// sign-in failure is added once.
    package static func add(_ outcome: String, on step: String, to outcomes: inout [String: [String]]) {
        // Changed in place: a copy of the step's list would be copied again when stored back.
        if isPermission(outcome) {
            outcomes[step, default: []].removeAll(where: isPermission)
        } else if outcomes[step]?.contains(outcome) == true {
            return
        }
        outcomes[step, default: []].append(outcome)
    }
}
