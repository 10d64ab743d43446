import FunnelModel

/// What the simulator does on a step, derived from the flow definition alone (no per-flow
/// code). The rules, in order:
///
/// - **entry** (kind `entry`): shown before tracking starts; the app emits nothing there.
///   `onboarding.started` fires on the first step of another kind.
/// - **permission** (kind `permission`, or a `screen` whose id contains `permission`): emits
///   `permission_prompted` {permission} then `permission_result` {permission, granted}. The
///   permission's name is the step id without a trailing `Permission(s)`, `Benefits`,
///   `Authorization`, `Request` or `Prompt` (`notificationsPermission` → `notifications`,
///   `healthKitBenefits` → `healthKit`); a step named just `permissions` asks for
///   `notifications`.
/// - **sign-in** (not a permission step, and it collects `userId` or its id contains
///   `signin`, `auth` or `login`, ignoring case): emits `sign_in_started` {provider}, sometimes
///   `sign_in_failed` {provider, reason} (repeated), then `signed_up` or `sign_in_succeeded`
///   {provider}. The provider is the value collected under `provider`, else a collected value
///   naming one (`apple`, `google`, `email_*` → `email`), else `email`. The outcome is
///   `signed_up` when a collected value says sign-up (`signup`, `sign_up`, `create`,
///   `register`, `invite`), `sign_in_succeeded` when it says log-in (`login`, `log_in`,
///   `sign_in`), else either.
/// - **optional** (`optional: true`): some users view it and go on without `step_completed`.
/// - The **last step shown** on a user's expected path ends the flow: `onboarding.completed`
///   with that step.
struct StepRoles {
    static let permissionSuffixes = ["Permissions", "Permission", "Benefits", "Authorization", "Request", "Prompt"]

    static func isPermission(_ step: FlowDefinition.Step) -> Bool {
        step.kind == .permission || (step.kind == .screen && step.id.lowercased().contains("permission"))
    }

    static func isSignIn(_ step: FlowDefinition.Step) -> Bool {
        guard !isPermission(step), step.kind != .entry else { return false }
        if step.collects.contains(where: { $0.key == "userId" }) { return true }
        let id = step.id.lowercased()
        return id.contains("signin") || id.contains("auth") || id.contains("login")
    }

    static func permissionName(_ stepID: String) -> String {
        for suffix in permissionSuffixes where stepID.hasSuffix(suffix) {
            let base = String(stepID.dropLast(suffix.count))
            if !base.isEmpty { return base }
        }
        if stepID.lowercased() == "permissions" || stepID.lowercased() == "permission" { return "notifications" }
        return stepID
    }

    /// The provider for a sign-in step, from the values the user gives on it.
    static func provider(_ values: [(key: String, value: JSONValue)]) -> String {
        if let p = values.first(where: { $0.key == "provider" })?.value.stringValue { return p }
        for (_, v) in values {
            guard let s = v.stringValue?.lowercased() else { continue }
            for known in ["apple", "google", "facebook"] where s == known { return known }
            if s.hasPrefix("email") { return "email" }
        }
        return "email"
    }

    /// true: signed_up, false: sign_in_succeeded, nil: the values do not say.
    static func signsUp(_ values: [(key: String, value: JSONValue)]) -> Bool? {
        for (_, v) in values {
            guard let s = v.stringValue?.lowercased() else { continue }
            if ["signup", "sign_up", "create", "register", "invite"].contains(where: { s.contains($0) }) { return true }
            if ["login", "log_in", "sign_in", "signin"].contains(where: { s.contains($0) }) { return false }
        }
        return nil
    }
}

/// How a collected value is drawn. Listed values are drawn evenly (`true`/`false` become JSON
/// booleans, integers JSON numbers); for a key without a list the key's name decides:
/// `userId` → the user's id; `…birth…` → a birth date 18–75 years back; `…date…` → a date in
/// the 60 days before the user started; `…time…` → `HH:MM`; `…paceKg` → 0.25–1.0;
/// `…Kg` → 50.0–140.0; `…Cm` → 150–200; `…count…` → 1–5; anything else → `value_1`…`value_3`.
enum ValueKind {
    case listed([JSONValue])
    case userID, birthDate, recentDate, timeOfDay, paceKg, weightKg, heightCm, count, generic

    init(_ c: FlowDefinition.Collected) {
        if let values = c.values, !values.isEmpty {
            self = .listed(values.map(ValueKind.literal))
            return
        }
        let k = c.key.lowercased()
        if k == "userid" || k.hasSuffix("userid") { self = .userID }
        else if k.contains("birth") { self = .birthDate }
        else if k.contains("date") { self = .recentDate }
        else if k.contains("time") { self = .timeOfDay }
        else if k.hasSuffix("kg") { self = k.contains("pace") ? .paceKg : .weightKg }
        else if k.hasSuffix("cm") { self = .heightCm }
        else if k.contains("count") { self = .count }
        else { self = .generic }
    }

    static func literal(_ s: String) -> JSONValue {
        if s == "true" { return .bool(true) }
        if s == "false" { return .bool(false) }
        if let i = Int(s), String(i) == s { return .number(s) }
        return .string(s)
    }

    func draw(_ rng: inout SplitMix64, userID: String, startDay: Int64) -> JSONValue {
        switch self {
        case .listed(let vs): return vs[rng.int(0...(vs.count - 1))]
        case .userID: return .string(userID)
        case .birthDate: return .string(LineBuilder.day(startDay - Int64(rng.int(18 * 365...75 * 365))))
        case .recentDate: return .string(LineBuilder.day(startDay - Int64(rng.int(0...60))))
        case .timeOfDay:
            let half = rng.int(12...45)
            return .string((half / 2 < 10 ? "0" : "") + "\(half / 2):" + (half % 2 == 0 ? "00" : "30"))
        case .paceKg: return .number(["0.25", "0.5", "0.75", "1.0"][rng.int(0...3)])
        case .weightKg: return .number("\(rng.int(50...140)).\(rng.int(0...9))")
        case .heightCm: return .number("\(rng.int(150...200))")
        case .count: return .number("\(rng.int(1...5))")
        case .generic: return .string("value_\(rng.int(1...3))")
        }
    }
}
