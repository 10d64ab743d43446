import FunnelModel

/// How many users to simulate, over which days, from which seed.
public struct SimulationOptions: Sendable, Hashable {
    public var users: Int
    public var seed: UInt64
    /// Users start evenly over this many UTC days.
    public var days: Int
    /// The first day, `YYYY-MM-DD`.
    public var startDay: String
    /// The number in the first user's id (`u-000001` for 1); the others count on from it. A
    /// later run given the number after an earlier run's last user simulates new users
    /// (the same seed and index give the same journey, whatever the number).
    public var firstUser: Int
    /// How event ids look: 16 hex digits, or UUIDs as many SDKs send.
    public var eventIDs: EventIDStyle
    /// Users also stray from their path: jump ahead and come back, view a step their path
    /// does not hold, leave for days and resume on an earlier step (`Plan.wander`). Off: the
    /// same bytes as before the option existed.
    public var wander: Bool

    public enum EventIDStyle: String, Sendable, Hashable, CaseIterable {
        case hex, uuid
    }

    public init(users: Int, seed: UInt64 = 1, days: Int = 7, startDay: String = "2026-10-01", firstUser: Int = 1,
                eventIDs: EventIDStyle = .hex, wander: Bool = false) {
        self.users = users
        self.seed = seed
        self.days = days
        self.startDay = startDay
        self.firstUser = firstUser
        self.eventIDs = eventIDs
        self.wander = wander
    }
}

public enum SimulationError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidOption(String)
    case invalidFlow(String)

    public var description: String {
        switch self {
        case .invalidOption(let s): return "invalid simulation option: \(s)"
        case .invalidFlow(let s): return "cannot simulate this flow: \(s)"
        }
    }
}

/// One simulated user: who they were and what the simulator made them do, so tests and
/// benchmarks can compare a fold's result with the truth.
public struct SimulatedUser: Sendable, Hashable {
    public var userID: String
    public var platform: String
    public var appVersion: String
    public var flags: [String: Bool]
    /// The values the user gave on the steps they completed, by key.
    public var values: [String: JSONValue]
    /// The lane of their expected path (nil when no lane matches their answers).
    public var lane: String?
    /// Their expected path's shown steps, entry steps included.
    public var expectedPath: [String]
    /// The tracked steps they viewed, in order of first view.
    public var viewedSteps: [String]
    public var started: Bool
    public var completed: Bool
    /// The step they left the flow on, when they did not complete it and had started.
    public var abandonedAt: String?
    /// Time of their first event (micros since the epoch), if any.
    public var firstEventMicros: Int64?
}

/// The events of a simulation as one byte buffer of lines, with each line's event time.
public struct SimulatedEvents: Sendable {
    /// Every line, newline-terminated, in generation order (user by user).
    public internal(set) var bytes: [UInt8] = []
    /// Where each line starts in `bytes`; line i ends where line i+1 starts.
    public internal(set) var starts: [Int] = []
    /// Each line's event time, microseconds since the epoch (UTC).
    public internal(set) var micros: [Int64] = []
    /// Each line's user, as the index of the user in the simulation.
    public internal(set) var users: [Int32] = []

    public var count: Int { starts.count }

    public func range(_ i: Int) -> Range<Int> {
        starts[i]..<(i + 1 < starts.count ? starts[i + 1] : bytes.count)
    }

    /// Adds `other`'s lines after these.
    mutating func append(_ other: SimulatedEvents) {
        let base = bytes.count
        starts += other.starts.lazy.map { $0 + base }
        micros += other.micros
        users += other.users
        bytes += other.bytes
    }

    /// No lines, the memory kept for the next ones.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        micros.removeAll(keepingCapacity: true)
        users.removeAll(keepingCapacity: true)
    }

    /// Line i without its newline.
    public func line(_ i: Int) -> String {
        let r = range(i)
        return String(decoding: bytes[r.lowerBound..<(r.upperBound - 1)], as: UTF8.self)
    }
}

public struct SimulationResult: Sendable {
    public var users: [SimulatedUser]
    public var events: SimulatedEvents
}

/// Simulates users through any flow definition: each user gets a platform, an app version, a
/// UTC offset and flag values (each flag on for a share of users that depends on the seed),
/// answers for every value a step collects, and walks the expected path those give
/// (`FlowDefinition.expectedPath`), with drop-off per step, back navigation, app kills and
/// resumes, sign-in failures and permission answers (see `StepRoles`). Output depends on the
/// flow and the options alone.
public struct Simulation: Sendable {
    public let flow: FlowDefinition
    public let options: SimulationOptions

    public static let platforms: [(String, Double)] = [("ios", 0.85), ("ipados", 1.0)]
    public static let appVersions: [(String, Double)] = [("3.1.0", 0.15), ("3.2.0", 0.40), ("3.2.1", 0.70), ("3.3.0", 1.0)]
    /// UTC offsets in seconds the clients write (`Z`, +02:00, -05:00, …).
    public static let offsets: [Int32] = [0, 7200, -18000, 3600, -28800, 19800, 32400, -10800, 0]
    public static let failureReasons = ["invalid_credentials", "network_error", "cancelled", "password_reset"]

    public init(flow: FlowDefinition, options: SimulationOptions) throws {
        guard options.users >= 0 else { throw SimulationError.invalidOption("--users must not be negative") }
        guard options.users < 1 << 40 else { throw SimulationError.invalidOption("--users is too large") }
        guard options.days >= 1 else { throw SimulationError.invalidOption("--days must be at least 1") }
        guard options.firstUser >= 1 else { throw SimulationError.invalidOption("--first-user must be at least 1") }
        guard options.firstUser < 1 << 40 else { throw SimulationError.invalidOption("--first-user is too large") }
        guard let t = Timestamp.parse(options.startDay), options.startDay.count == 10 else {
            throw SimulationError.invalidOption("--start \(options.startDay) is not a date YYYY-MM-DD")
        }
        _ = t
        guard !flow.lanes.isEmpty, !flow.steps.isEmpty else { throw SimulationError.invalidFlow("\(flow.id) has no lanes or no steps") }
        self.flow = flow
        self.options = options
    }

    /// Simulates every user and keeps them all in memory; `progress` is told how many are
    /// done every 1,000 users.
    public func run(progress: ((Int) -> Void)? = nil) -> SimulationResult {
        var events = SimulatedEvents()
        events.bytes.reserveCapacity(options.users * 40 * 300)
        var users: [SimulatedUser] = []
        users.reserveCapacity(options.users)
        forEachUser(progress: progress) { user, lines in
            users.append(user)
            events.append(lines)
        }
        return SimulationResult(users: users, events: events)
    }

    /// Simulates the users in order, handing each to `body` with their lines alone (the
    /// buffer is reused for the next user); `progress` is told how many are done every 1,000
    /// users.
    public func forEachUser(progress: ((Int) -> Void)? = nil,
                            _ body: (SimulatedUser, SimulatedEvents) throws -> Void) rethrows {
        var plan = Plan(flow: flow, seed: options.seed, wander: options.wander)
        var lines = SimulatedEvents()
        let startMicros = (Timestamp.parse(options.startDay)?.micros ?? 0)
        for u in 0..<options.users {
            lines.removeAll()
            let user = plan.simulate(user: u, number: options.firstUser + u, firstDayMicros: startMicros, days: options.days,
                                     uuids: options.eventIDs == .uuid, into: &lines)
            try body(user, lines)
            if (u + 1) % 1_000 == 0 { progress?(u + 1) }
        }
    }
}

/// The flow prepared for fast simulation: steps with their pre-encoded JSON and roles.
struct Plan {
    struct StepInfo {
        let step: FlowDefinition.Step
        let quotedID: [UInt8]
        let collects: [(key: String, quotedKey: [UInt8], kind: ValueKind)]
        let isSignIn: Bool
        let isPermission: Bool
        let quotedPermission: [UInt8]
        let dropOff: Double
    }

    let flow: FlowDefinition
    let seed: UInt64
    /// `SimulationOptions.wander`.
    let wander: Bool
    let steps: [String: StepInfo]
    /// Step ids in flow order, the order values are drawn in.
    let order: [String]
    let quotedFlow: [UInt8]
    let flagNames: [String]
    let flagShares: [Double]
    var names: [EventName: [UInt8]] = [:]
    /// The keys any condition reads: the expected path depends on these values alone.
    let conditionKeys: [String]
    /// Expected paths already computed, by the values of `conditionKeys` and the flags.
    var pathMemo: [String: ExpectedPath] = [:]

    init(flow: FlowDefinition, seed: UInt64, wander: Bool = false) {
        self.flow = flow
        self.seed = seed
        self.wander = wander
        var steps: [String: StepInfo] = [:]
        for s in flow.steps where steps[s.id] == nil {
            let signIn = StepRoles.isSignIn(s)
            let permission = StepRoles.isPermission(s)
            // Drop-off per step: 0.5–3 %, more where users hesitate (sign-in, permission),
            // little on the terminal step; the share depends on the seed and the step id.
            var p = 0.005 + 0.025 * unitHash(seed, flow.id + "/drop/" + s.id)
            if signIn { p += 0.06 }
            if permission { p += 0.03 }
            if s.kind == .terminal { p = 0.003 }
            if s.kind == .entry { p = 0.02 }
            steps[s.id] = StepInfo(
                step: s, quotedID: LineBuilder.quoted(s.id),
                collects: s.collects.sorted { $0.key < $1.key }.map { ($0.key, LineBuilder.quoted($0.key), ValueKind($0)) },
                isSignIn: signIn, isPermission: permission,
                quotedPermission: LineBuilder.quoted(StepRoles.permissionName(s.id)), dropOff: p)
        }
        self.steps = steps
        order = flow.orderedStepIDs
        quotedFlow = LineBuilder.quoted(flow.id)
        flagNames = flow.flags.map(\.id).sorted()
        flagShares = flagNames.map { 0.3 + 0.4 * unitHash(seed, flow.id + "/flag/" + $0) }
        for n in EventName.allCases { names[n] = Array(n.rawValue.utf8) }
        var keys = Set<String>()
        let texts = flow.lanes.compactMap(\.when) + flow.lanes.flatMap { $0.steps.compactMap(\.when) } + flow.steps.compactMap(\.when)
        for text in texts { for k in (try? Condition(parsing: text))?.keys ?? [] where !k.hasPrefix("flag:") { keys.insert(k) } }
        conditionKeys = keys.sorted()
    }

    /// `path(values:ctx:)`, remembered: users who gave the same answers to what the
    /// conditions read, with the same flags, share one expected path.
    mutating func memoizedPath(values: [String: JSONValue], ctx: ConditionContext, flags: [String: Bool]) -> ExpectedPath {
        var key = ""
        for k in conditionKeys {
            let isContext = k == "app_version" || k == "platform" || k == "start_date"
            if let v = isContext ? ctx.lookup(k) : values[k] { v.write(into: &key) } else { key += "-" }
            key += "\u{1}"
        }
        for name in flagNames { key += (flags[name] ?? false) ? "1" : "0" }
        if let known = pathMemo[key] { return known }
        let computed = path(values: values, ctx: ctx)
        pathMemo[key] = computed
        return computed
    }

    static func pick(_ table: [(String, Double)], _ x: Double) -> String {
        table.first { x < $0.1 }?.0 ?? table[table.count - 1].0
    }

    /// The expected path for the answers given: answers on steps off the path do not count,
    /// so the path is recomputed until it no longer changes.
    func path(values: [String: JSONValue], ctx base: ConditionContext) -> ExpectedPath {
        var ctx = base
        ctx.values = values
        var path = flow.expectedPath(ctx)
        for _ in 0..<4 {
            var kept: [String: JSONValue] = [:]
            for id in path.shownSteps { for c in steps[id]?.collects ?? [] { kept[c.key] = values[c.key] } }
            ctx.values = kept
            let next = flow.expectedPath(ctx)
            if next.shownSteps == path.shownSteps { return next }
            path = next
        }
        return path
    }

    /// User `u` of the run (its journey), with the id `u-` and `number` (at least six digits).
    mutating func simulate(user u: Int, number: Int, firstDayMicros: Int64, days: Int, uuids: Bool,
                           into out: inout SimulatedEvents) -> SimulatedUser {
        var rng = SplitMix64(seed: SplitMix64.mix(seed ^ 0x5EED_0000_0000_0000) ^ UInt64(u) &* 0x9E37_79B9_7F4A_7C15)
        let userID = "u-" + String(repeating: "0", count: max(0, 6 - String(number).count)) + String(number)
        let platform = Plan.pick(Simulation.platforms, rng.unit())
        let version = Plan.pick(Simulation.appVersions, rng.unit())
        let offset = Simulation.offsets[rng.int(0...(Simulation.offsets.count - 1))]
        var flags: [String: Bool] = [:]
        for (i, name) in flagNames.enumerated() { flags[name] = rng.unit() < flagShares[i] }
        // Start: any millisecond of the simulated days, more often in the local daytime.
        var t = firstDayMicros + Int64(rng.int(0...(days * 86_400_000 - 1))) * 1000
        let localHour = ((t / 1_000_000 + Int64(offset)) % 86_400 + 86_400) % 86_400 / 3600
        if localHour < 7 && rng.chance(0.7) { t += Int64(rng.int(7...12)) * 3_600_000_000 }
        let startDay = t / 86_400_000_000

        // Every answer is drawn up front, in flow order, so the draw does not depend on the path.
        var values: [String: JSONValue] = [:]
        var stepValues: [String: [(key: String, value: JSONValue)]] = [:]
        for id in order {
            guard let info = steps[id] else { continue }
            var vs: [(key: String, value: JSONValue)] = []
            for c in info.collects {
                let v = c.kind.draw(&rng, userID: userID, startDay: startDay)
                vs.append((c.key, v))
                if values[c.key] == nil { values[c.key] = v }
            }
            stepValues[id] = vs
        }
        let ctx = ConditionContext(flags: flags.mapValues { JSONValue.bool($0) }, appVersion: version, platform: platform,
                                   startDate: LineBuilder.day(startDay), flagDefaults: flow.flagDefaults)
        let expected = memoizedPath(values: values, ctx: ctx, flags: flags)
        let shown = expected.shownSteps

        // The context every line carries, pre-encoded.
        var contextBytes: [UInt8] = Array(",\"context\":{\"app_version\":".utf8) + LineBuilder.quoted(version)
        contextBytes += Array(",\"flags\":{".utf8)
        for (i, name) in flagNames.enumerated() {
            if i > 0 { contextBytes.append(44) }
            contextBytes += LineBuilder.quoted(name) + Array(((flags[name] ?? false) ? ":true" : ":false").utf8)
        }
        contextBytes += Array("},\"platform\":".utf8) + LineBuilder.quoted(platform) + Array("}}\n".utf8)
        let userBytes = LineBuilder.quoted(userID)

        var emitter = Emitter(seedBase: SplitMix64.mix(seed &+ 0xE7E7_1D5) ^ (UInt64(u) << 20), names: names,
                              quotedFlow: quotedFlow, quotedUser: userBytes, context: contextBytes, offset: offset,
                              user: Int32(truncatingIfNeeded: u), uuids: uuids)
        var summary = SimulatedUser(userID: userID, platform: platform, appVersion: version, flags: flags, values: [:],
                                    lane: expected.lane, expectedPath: shown, viewedSteps: [], started: false,
                                    completed: false, abandonedAt: nil, firstEventMicros: nil)
        var viewed = Set<String>()
        func dwell(_ info: StepInfo, _ rng: inout SplitMix64) -> Int64 {
            let (lo, hi): (Double, Double)
            switch info.step.kind {
            case .affirmation, .entry: (lo, hi) = (1.5, 8)
            case .permission: (lo, hi) = (2, 15)
            case .terminal: (lo, hi) = (2, 20)
            case .screen: (lo, hi) = info.collects.isEmpty ? (2, 25) : (3, 45)
            }
            return Int64(rng.logUniform(lo, hi) * 1000) * 1000
        }

        var previousTracked: StepInfo? = nil
        var tracking = false
        stepLoop: for (index, id) in shown.enumerated() {
            guard let info = steps[id] else { continue }
            let isLast = index == shown.count - 1
            if info.step.kind == .entry && !tracking {
                // Untracked: the user may leave here without a trace.
                if rng.chance(info.dropOff) { break stepLoop }
                t += dwell(info, &rng)
                continue
            }
            if !tracking {
                tracking = true
                summary.started = true
                summary.firstEventMicros = t
                emitter.emit(.started, step: info.quotedID, at: t, into: &out)
                // The view follows 1 ms later, so event time alone orders the two.
                t += 1000
            }
            emitter.emit(.stepViewed, step: info.quotedID, at: t, into: &out)
            if viewed.insert(id).inserted { summary.viewedSteps.append(id) }
            summary.abandonedAt = id
            t += dwell(info, &rng)

            // Back navigation: return to the previous step, complete it again, come back.
            if let prev = previousTracked, !prev.isSignIn, !prev.isPermission, !isLast, rng.chance(0.05) {
                emitter.emit(.stepBack, step: info.quotedID, properties: Array("{\"to\":".utf8) + prev.quotedID + [125], at: t, into: &out)
                t += 400_000
                emitter.emit(.stepViewed, step: prev.quotedID, at: t, into: &out)
                t += dwell(prev, &rng)
                emitter.emit(.stepCompleted, step: prev.quotedID, properties: properties(prev, stepValues[prev.step.id] ?? []), at: t, into: &out)
                t += 300_000
                emitter.emit(.stepViewed, step: info.quotedID, at: t, into: &out)
                t += dwell(info, &rng)
            }
            if wander, !isLast {
                strays(from: index, shown: shown, t: &t, rng: &rng, emitter: &emitter, out: &out, viewed: &viewed, summary: &summary)
            }
            // App killed on this step: silence, then the user resumes here minutes to hours later.
            if !isLast && rng.chance(0.03) {
                t += Int64(rng.logUniform(300, 20 * 3600) * 1000) * 1000
                emitter.emit(.stepViewed, step: info.quotedID, at: t, into: &out)
                t += dwell(info, &rng)
            }
            let leaves = rng.chance(info.dropOff)
            let given = stepValues[id] ?? []
            if info.isSignIn {
                let provider = LineBuilder.quoted(StepRoles.provider(given))
                let providerProps = Array("{\"provider\":".utf8) + provider + [125]
                emitter.emit(.signInStarted, step: info.quotedID, properties: providerProps, at: t, into: &out)
                t += Int64(rng.int(1500...9000)) * 1000
                var failures = rng.chance(leaves ? 0.6 : 0.22) ? rng.int(1...3) : 0
                if leaves && failures == 0 && rng.chance(0.5) { break stepLoop }
                while failures > 0 {
                    let reason = Simulation.failureReasons[rng.int(0...(Simulation.failureReasons.count - 1))]
                    emitter.emit(.signInFailed, step: info.quotedID,
                                 properties: Array("{\"provider\":".utf8) + provider + Array(",\"reason\":".utf8) + LineBuilder.quoted(reason) + [125],
                                 at: t, into: &out)
                    t += Int64(rng.int(3000...25000)) * 1000
                    failures -= 1
                    if failures > 0 || !leaves {
                        emitter.emit(.signInStarted, step: info.quotedID, properties: providerProps, at: t, into: &out)
                        t += Int64(rng.int(1500...9000)) * 1000
                    }
                }
                if leaves { break stepLoop }
                let up = StepRoles.signsUp(given) ?? rng.chance(0.55)
                emitter.emit(up ? .signedUp : .signInSucceeded, step: info.quotedID, properties: providerProps, at: t, into: &out)
                t += 300_000
            } else if info.isPermission {
                let perm = Array("{\"permission\":".utf8) + info.quotedPermission
                emitter.emit(.permissionPrompted, step: info.quotedID, properties: perm + [125], at: t, into: &out)
                if leaves && rng.chance(0.5) { break stepLoop }
                t += Int64(rng.int(800...8000)) * 1000
                let granted = rng.chance(0.68)
                emitter.emit(.permissionResult, step: info.quotedID,
                             properties: Array("{\"granted\":".utf8) + Array((granted ? "true," : "false,").utf8) + Array(perm.dropFirst()) + [125],
                             at: t, into: &out)
                t += 300_000
                if leaves { break stepLoop }
            } else if leaves {
                break stepLoop
            }
            // An optional step may be left without completing it.
            if info.step.optional == true && !isLast && rng.chance(0.4) {
                previousTracked = info
                continue
            }
            emitter.emit(.stepCompleted, step: info.quotedID, properties: properties(info, given), at: t, into: &out)
            for (k, v) in given where summary.values[k] == nil { summary.values[k] = v }
            if isLast {
                t += 200_000
                emitter.emit(.completed, step: info.quotedID, at: t, into: &out)
                summary.completed = true
                summary.abandonedAt = nil
            }
            t += Int64(rng.int(150...900)) * 1000
            previousTracked = info
        }
        if !summary.started { summary.abandonedAt = nil }
        return summary
    }

    func properties(_ info: StepInfo, _ given: [(key: String, value: JSONValue)]) -> [UInt8]? {
        guard !given.isEmpty else { return nil }
        var s = "{"
        for (i, kv) in given.enumerated() {
            if i > 0 { s += "," }
            JSONValue.writeString(kv.key, into: &s)
            s += ":"
            kv.value.write(into: &s)
        }
        s += "}"
        return Array(s.utf8)
    }
}

/// Writes one user's lines.
struct Emitter {
    let seedBase: UInt64
    let names: [EventName: [UInt8]]
    let quotedFlow: [UInt8]
    let quotedUser: [UInt8]
    let context: [UInt8]
    let offset: Int32
    let user: Int32
    /// Event ids as UUIDs (version 4 layout) instead of 16 hex digits.
    let uuids: Bool
    var counter: UInt64 = 0

    static let idKey = Array("{\"event_id\":\"".utf8)
    static let eventKey = Array("\",\"event\":\"".utf8)
    static let userKey = Array("\",\"user_id\":".utf8)
    static let tsKey = Array(",\"ts\":\"".utf8)
    static let flowKey = Array("\",\"flow\":".utf8)
    static let stepKey = Array(",\"step\":".utf8)
    static let propertiesKey = Array(",\"properties\":".utf8)

    mutating func emit(_ name: EventName, step: [UInt8], properties: [UInt8]? = nil, at micros: Int64, into out: inout SimulatedEvents) {
        // Whole milliseconds, as clients write them.
        let t = micros / 1000 * 1000
        out.starts.append(out.bytes.count)
        out.micros.append(t)
        out.users.append(user)
        out.bytes += Emitter.idKey
        // Unique per (seed, user, counter): the finalizer is a bijection (a UUID keeps those
        // 64 bits whole and adds 64 more).
        let id = SplitMix64.mix(seedBase ^ counter)
        if uuids {
            LineBuilder.appendUUID(id, SplitMix64.mix(id ^ 0x5555_AAAA_5555_AAAA), into: &out.bytes)
        } else {
            LineBuilder.appendHex(id, into: &out.bytes)
        }
        counter += 1
        out.bytes += Emitter.eventKey
        out.bytes += names[name] ?? []
        out.bytes += Emitter.userKey
        out.bytes += quotedUser
        out.bytes += Emitter.tsKey
        // Whole milliseconds: written as `Timestamp.rfc3339()` writes them.
        Timestamp(micros: t, offsetSeconds: offset).appendRFC3339(into: &out.bytes)
        out.bytes += Emitter.flowKey
        out.bytes += quotedFlow
        out.bytes += Emitter.stepKey
        out.bytes += step
        if let properties {
            out.bytes += Emitter.propertiesKey
            out.bytes += properties
        }
        out.bytes += context
    }
}
