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

    /// Whether an outcome is one of the permission outcomes (one per step: the latest). By
    /// bytes: every outcome starts with its event's ASCII name.
    public static func isPermission(_ outcome: String) -> Bool {
        starts(outcome, with: "permission_")
    }

    /// Whether an outcome is a sign-in failure.
    public static func isSignInFailure(_ outcome: String) -> Bool {
        starts(outcome, with: "sign_in_failed ")
    }

    /// Whether the bytes of `s` start with `prefix`'s.
    private static func starts(_ s: String, with prefix: StaticString) -> Bool {
        var s = s
        return s.withUTF8 { b in
            b.starts(with: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        }
    }

    /// Adds `outcome` on `step`: a permission outcome replaces the step's earlier one, a
    /// sign-in failure is added once.
    package static func add(_ outcome: String, on step: String, to outcomes: inout [String: [String]]) {
        if outcomes.isEmpty { outcomes.reserveCapacity(Tuning.promptStepsReserved) }
        // The step looked up once, its list changed in place (a copy would be copied again
        // when stored back).
        add(outcome, to: &outcomes[step, default: []])
    }

    private static func add(_ outcome: String, to list: inout [String]) {
        if list.isEmpty {
            list.append(outcome)
            return
        }
        if isPermission(outcome) {
            list.removeAll(where: isPermission)
        } else if list.contains(outcome) {
            return
        }
        list.append(outcome)
    }
}
