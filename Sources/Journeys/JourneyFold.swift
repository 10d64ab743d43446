import Foundation
import FunnelModel

/// The one fold from a user's events to their `Journey`. Reports use it through the
/// projection, replay uses it event by event to explain each step: the same code, so a
/// report figure can always be traced to the events behind it.
///
/// Feed events in fold order (`RecordedEvent.foldOrder`); `apply` returns what each event
/// means for the journey, `finish` computes the expected path and eligibility.
public struct JourneyFold: Sendable {
    public var definition: FlowDefinition? { rules.definition }
    public private(set) var userID: String
    public private(set) var flow: String
    private var startedAt: Timestamp?
    private var startStep: String?
    private var completedAt: Timestamp?
    private var firstEventAt: Timestamp?
    private var lastEventAt: Timestamp?
    private var currentStep: String?
    private var currentStepSince: Timestamp?
    /// The code of `currentStep` (-1: none, or a step without one).
    private var currentCode: Int32 = -1
    private var values: KeyedValues
    private var flags: KeyedValues
    private var appVersion: String?
    private var platform: String?
    private var visits: [Journey.StepVisit] = []
    /// Each visit's step code (`FlowVocabulary.stepCodes`; -1: a step without one).
    private var visitCodes: [Int32] = []
    /// The visit of each step code (-1: none yet; empty before the first).
    private var visitByCode: [Int32] = []
    /// The visits of steps without a code, by step.
    private var visitIndex: [String: Int] = [:]
    /// The visit of `currentStep` (its index in `visits`), so a step change needs no lookup.
    private var currentVisit: Int?
    private var events = 0
    private var unplanned = 0
    private var backNavigations = 0
    private var signInFailures = 0
    private var deviations: [String] = []
    /// When the journey first showed each thing the definition does not know (`DriftKey`).
    private var driftSeen: [String: Timestamp] = [:]
    /// What the prompts on each step came to (`Journey.promptOutcomes`).
    private var promptOutcomes: [String: [String]] = [:]
    /// `Journey.lastSeqOnCurrentStep`.
    private var lastSeqOnCurrentStep: Int64?
    /// `Journey.viewRuns`, `silences`, `silenceSinceView` and `lastSeq`.
    private var viewRuns: [Journey.ViewRun] = []
    /// The visit of each of `viewRuns` (an index into `visits`; -1: none).
    private var runVisits: [Int32] = []
    private var silences: [Journey.Silence] = []
    private var silenceSinceView: Int64 = 0
    private var lastSeq: Int64?
    /// The context number of the last event folded (`FoldableEvent.contextID`).
    private var lastContextID: Int32 = -1
    /// The definition and what each event reads of it (`Rules`: shared by every fold of it).
    private let rules: Rules
    /// Whether there is a definition (`Rules.hasDefinition`), asked for every event: kept in
    /// the fold itself, not read through its rules each time.
    private let hasDefinition: Bool
    private var stepCodes: [String: Int32] { rules.stepCodes }
    private var stepCodeCount: Int { rules.stepCodeCount }
    private var declaredFlags: Set<String> { rules.declaredFlags }
    private var listedValues: [String: Set<String>] { rules.listedValues }

    public init(userID: String, flow: String, definition: FlowDefinition?) {
        self.init(userID: userID, flow: flow, rules: Rules(definition))
    }

    /// A fold by `rules` (its flow definition's, built once for all its folds).
    package init(userID: String, flow: String, rules: Rules) {
        self.userID = userID
        self.flow = flow
        self.rules = rules
        hasDefinition = rules.hasDefinition
        values = KeyedValues(keys: rules.answerKeys)
        flags = KeyedValues(keys: rules.flagKeys)
    }

    /// What a fold needs beyond its `Journey` to go on with later events.
    public struct Resume: Sendable, Hashable {
        public var currentStepSince: Timestamp?
        /// Deviations noticed while folding (`finish` adds the path's own).
        public var deviations: [String]
    }

    public var resume: Resume { Resume(currentStepSince: currentStepSince, deviations: deviations) }

    /// A fold that goes on from `journey` (which `finish` gave) and its `resume` state, as if
    /// it had folded the journey's events itself: feed it only events that come after them in
    /// fold order.
    public init(resuming journey: Journey, _ state: Resume, definition: FlowDefinition?) {
        self.init(resuming: journey, state, rules: Rules(definition))
    }

    package init(resuming journey: Journey, _ state: Resume, rules: Rules) {
        self.init(userID: journey.userID, flow: journey.flow, rules: rules)
        startedAt = journey.startedAt
        startStep = journey.startStep
        completedAt = journey.completedAt
        firstEventAt = journey.firstEventAt
        lastEventAt = journey.lastEventAt
        currentStep = journey.currentStep
        currentStepSince = state.currentStepSince
        values = journey.values.coded(by: rules.answerKeys)
        flags = journey.flags.coded(by: rules.flagKeys)
        appVersion = journey.appVersion
        platform = journey.platform
        visits = journey.visits
        for (i, v) in journey.visits.enumerated() {
            let code = stepCodes[v.step] ?? -1
            visitCodes.append(code)
            index(visit: i, of: v.step, code: code)
        }
        currentCode = journey.currentStep.flatMap { stepCodes[$0] } ?? -1
        currentVisit = journey.currentStep.flatMap { visit(of: $0, code: currentCode) }
        events = journey.events
        unplanned = journey.unplanned
        backNavigations = journey.backNavigations
        signInFailures = journey.signInFailures
        deviations = state.deviations
        driftSeen = journey.driftSeen
        promptOutcomes = journey.promptOutcomes
        lastSeqOnCurrentStep = journey.lastSeqOnCurrentStep
        viewRuns = journey.viewRuns
        runVisits = journey.viewRuns.map { run in Int32(visit(of: run.step, code: stepCodes[run.step] ?? -1) ?? -1) }
        silences = journey.silences
        silenceSinceView = journey.silenceSinceView
        lastSeq = journey.lastSeq
    }

    /// The next events number their contexts afresh (another input's `EventParts`): the last
    /// context folded is not known by its number there.
    package mutating func forgetContextNumber() {
        lastContextID = -1
    }

    /// Folds one event; returns notes on what it changed, for replay.
    @discardableResult
    public mutating func apply(_ recorded: RecordedEvent) -> [String] {
        apply(recorded, explain: true)
    }

    /// Folds the held events of `view` at `order`'s positions, without notes: the entry other
    /// modules call, so they get the fold specialized for `HeldView` (a generic call from
    /// another module reads each value through the protocol's witnesses), and one view is
    /// moved along the events, retained once.
    package mutating func apply(_ view: HeldView, order: [Int]) {
        var view = view
        for i in order {
            view.i = i
            apply(view, explain: false)
        }
    }

    /// Folds one event; with `explain`, returns notes on what it changed (folding for the
    /// projection writes none: the same changes, without building their text).
    @discardableResult
    public mutating func apply<E: FoldableEvent>(_ e: E, explain: Bool) -> [String] {
        var notes: [String] = []
        func note(_ text: @autoclosure () -> String) {
            if explain { notes.append(text()) }
        }
        // Each read once, and the step's name only where it is kept or named: a value read
        // from a held event is a copy to retain and release, and its code names the step.
        let time = e.time
        let code = hasDefinition ? e.listedStepCode ?? e.stepCode(in: rules.stepCodes) : -1
        // After the event's own changes: a view makes its step current, and any event on the
        // current step is the latest there (events come in fold order).
        defer { if isOnCurrentStep(e, code: code) { lastSeqOnCurrentStep = e.seq } }
        events += 1
        lastSeq = e.seq
        // Events come in fold order: the latest so far is the one before this.
        if let previous = lastEventAt, !viewRuns.isEmpty {
            silenceSinceView = max(silenceSinceView, time.micros - previous.micros)
        }
        if firstEventAt == nil { firstEventAt = time }
        if lastEventAt.map({ time > $0 }) ?? true { lastEventAt = time }
        // The same context as the event before changes nothing: applied once.
        let contextID = e.contextID
        if contextID < 0 || contextID != lastContextID {
            let context = e.context
            if let v = context.appVersion { appVersion = v }
            if let p = context.platform { platform = p }
            // Declared flags by code where the event carries them (none is drift), else by name.
            let byCode = !explain && e.forEachFlagCode { code, value in
                if flags.value(code: code) != value { flags.set(value, code: code) }
            }
            if !byCode { applyFlags(context.flags, at: time, note: note) }
            lastContextID = contextID
        }
        if hasDefinition, code < 0, let step = e.step {
            unplanned += 1
            note("unknown step \(step): not in flow \(flow)")
            appendDeviation("unknown step \(step)")
        }
        guard let known = e.known else {
            if code >= 0 || e.step == nil { unplanned += 1 }
            note("unplanned event \(e.name): stored, not counted")
            appendDeviation("unknown event \(e.name)")
            if hasDefinition { seen(DriftKey.event(e.name), at: time) }
            return notes
        }
        switch known {
        case .started:
            if startedAt == nil {
                let step = e.step
                startedAt = time
                startStep = step
                note("started" + (step.map { " on \($0)" } ?? ""))
            } else {
                note("started again: the first start counts")
            }
        case .stepViewed:
            // Compared by code where the step has one (a code names one step), and its name
            // copied only where it is kept: names are shared by every journey of the flow,
            // and each copy is an atomic retain another thread contends.
            let sameStep: Bool
            if code >= 0 {
                sameStep = code == currentCode
            } else {
                guard let step = e.step else { note("step_viewed without a step"); break }
                sameStep = currentStep == step
            }
            if !sameStep, currentStep != nil, let since = currentStepSince, let i = currentVisit,
               visits[i].secondsOnStep == nil {
                visits[i].secondsOnStep = Double(time.micros - since.micros) / 1_000_000
            }
            if explain {
                let step = e.step ?? ""
                if let from = currentStep, !sameStep {
                    note("\(from) → \(step)")
                } else if sameStep {
                    note("\(step) shown again")
                } else {
                    note("→ \(step)")
                }
            }
            // A new run or a new visit keeps the name: read once.
            let name = sameStep ? nil : e.step
            let visit: Int
            if let i = sameStep ? currentVisit : self.visit(of: name ?? "", code: code) {
                visits[i].views += 1
                visit = i
            } else {
                let step = name ?? e.step ?? ""
                visit = visits.count
                index(visit: visit, of: step, code: code)
                if visits.isEmpty { reserveViews() }
                visitCodes.append(code)
                visits.append(.init(step: step, firstViewedAt: time, views: 1, secondsOnStep: nil))
            }
            if silenceSinceView > Tuning.keptSilenceMicros {
                silences.append(.init(run: sameStep ? viewRuns.count - 1 : viewRuns.count, startsRun: !sameStep,
                                      micros: silenceSinceView))
            }
            silenceSinceView = 0
            if let name {
                currentStepSince = time
                viewRuns.append(.init(step: name, at: time))
                runVisits.append(Int32(visit))
                currentStep = name
            }
            currentCode = code
            currentVisit = visit
        case .stepCompleted:
            // Replay notes each answer; a fold for the projection sets them by code where the
            // event carries them (no key hashed), else by name.
            if explain {
                let properties = e.properties
                var collected: [String] = []
                for key in properties.keys.sorted() {
                    guard let v = properties[key] else { continue }
                    if let old = values[key], old != v {
                        collected.append("\(key) = \(v.textValue) (was \(old.textValue))")
                    } else {
                        collected.append("\(key) = \(v.textValue)")
                    }
                    values[key] = v
                }
                note("completed \(e.step ?? "a step")" + (collected.isEmpty ? "" : ": " + collected.joined(separator: ", ")))
            } else if !e.forEachAnswerCode({ code, value in values.set(value, code: code) }) {
                for (key, v) in e.properties { values[key] = v }
            }
            if !explain, !listedValues.isEmpty, let unlisted = e.unlistedAnswers {
                // Worked out once for the event's distinct properties (`EventTable.answers`).
                for key in unlisted { seen(key, at: time) }
            } else if !listedValues.isEmpty {
                // Sorted for replay's notes; folding for the projection builds none.
                var unlisted: [String] = []
                for (key, v) in e.properties {
                    guard let listed = listedValues[key], !listed.contains(v.textValue) else { continue }
                    if explain { unlisted.append("\(key) = \(v.textValue) is not a value flow \(flow) lists for \(key)") }
                    seen(DriftKey.value(key, v.textValue), at: time)
                }
                if explain { for text in unlisted.sorted() { note(text) } }
            }
        case .stepBack:
            backNavigations += 1
            let to = e.properties["to"]?.textValue
            note("back from \(e.step ?? "?")" + (to.map { " to \($0)" } ?? ""))
        case .signInStarted:
            note("sign-in started" + provider(e))
        case .signInSucceeded:
            note("signed in" + provider(e))
        case .signedUp:
            note("signed up" + provider(e))
        case .signInFailed:
            signInFailures += 1
            let reason = e.properties["reason"]?.textValue
            note("sign-in failed" + provider(e) + (reason.map { ": \($0)" } ?? ""))
            if let step = e.step { PromptOutcome.add(PromptOutcome.signInFailed(reason: reason), on: step, to: &promptOutcomes) }
        case .permissionPrompted:
            note("asked for \(e.properties["permission"]?.textValue ?? "a permission")")
            if let step = e.step { PromptOutcome.add(PromptOutcome.permissionPrompted, on: step, to: &promptOutcomes) }
        case .permissionResult:
            if let step = e.step {
                PromptOutcome.add(PromptOutcome.permissionResult(granted: e.properties["granted"]?.textValue), on: step, to: &promptOutcomes)
            }
            let granted = e.properties["granted"]?.boolValue
            note("\(e.properties["permission"]?.textValue ?? "permission") " +
                         (granted == true ? "granted" : granted == false ? "denied" : "answered"))
        case .completed:
            if completedAt == nil {
                completedAt = time
                note("completed the flow" + (e.step.map { " on \($0)" } ?? ""))
            } else {
                note("completed again: the first completion counts")
            }
        }
        return notes
    }

    /// Sets the flags of an event's context by name, noting each change, and when a flag the
    /// definition does not declare was first seen.
    private mutating func applyFlags(_ given: [String: JSONValue], at time: Timestamp, note: (@autoclosure () -> String) -> Void) {
        for (k, v) in given where flags[k] != v {
            if let old = flags[k] {
                note("flag \(k): \(old.textValue) → \(v.textValue)")
            } else if hasDefinition, !declaredFlags.contains(k) {
                note("flag \(k) is not declared by flow \(flow)")
                seen(DriftKey.flag(k), at: time)
            }
            flags[k] = v
        }
    }

    /// Whether `e` (its step's code `code`) is on the current step: by code where the step
    /// has one (a code names one step), else by name.
    @inline(__always)
    private func isOnCurrentStep<E: FoldableEvent>(_ e: E, code: Int32) -> Bool {
        if code >= 0 { return code == currentCode }
        guard let step = e.step else { return false }
        return step == currentStep
    }

    /// Room for as many visits and view runs as the definition has steps, at the first view:
    /// most journeys view many, and grown one doubling at a time each array is copied anew.
    private mutating func reserveViews() {
        let room = min(stepCodeCount, Tuning.foldStepsReserved)
        visits.reserveCapacity(room)
        visitCodes.reserveCapacity(room)
        viewRuns.reserveCapacity(room)
        runVisits.reserveCapacity(room)
    }

    /// The visit of `step` (`code` its code, -1 for none; the name is read only without one),
    /// nil before its first view.
    @inline(__always)
    private func visit(of step: @autoclosure () -> String, code: Int32) -> Int? {
        guard code >= 0 else { return visitIndex[step()] }
        let i = Int(code)
        return i < visitByCode.count && visitByCode[i] >= 0 ? Int(visitByCode[i]) : nil
    }

    /// Records `visit` as the visit of `step` (`code` its code, -1 for none).
    private mutating func index(visit: Int, of step: String, code: Int32) {
        guard code >= 0 else {
            visitIndex[step] = visit
            return
        }
        if visitByCode.isEmpty { visitByCode = [Int32](repeating: -1, count: stepCodeCount) }
        visitByCode[Int(code)] = Int32(visit)
    }

    private func provider<E: FoldableEvent>(_ e: E) -> String {
        e.properties["provider"].map { " with \($0.textValue)" } ?? ""
    }

    /// Keeps the first time the journey showed something the definition does not know.
    private mutating func seen(_ key: String, at time: Timestamp) {
        if driftSeen[key] == nil { driftSeen[key] = time }
    }

    private mutating func appendDeviation(_ text: String) {
        if !deviations.contains(text) { deviations.append(text) }
    }

    /// The journey folded so far, with its expected path and eligibility.
    public func finish() -> Journey { finish(paths: nil) }

    /// `finish()`, taking the expected path from `paths` when it holds one for the context.
    package func finish(paths: ExpectedPaths?) -> Journey { finishCoded(paths: paths).journey }

    /// `finish(paths:)`, with the step codes of the journey's visits, view runs and path.
    package func finishCoded(paths: ExpectedPaths?) -> (journey: Journey, codes: JourneyCodes) {
        var codes = JourneyCodes(visits: visitCodes, runs: runVisits.map { $0 >= 0 ? visitCodes[Int($0)] : -1 }, path: [])
        var path = JourneyPath()
        var lane: String?
        var laneReason = "no flow definition for \(flow)"
        var deviations = self.deviations
        if let definition {
            let (expected, pathCodes) = expectedPath(definition, paths: paths)
            codes.path = pathCodes
            lane = expected.lane
            laneReason = expected.laneReason
            let entries = expected.entries
            // Steps on the path before the one the user started on are not tracked for them.
            let startIndex = startStep.flatMap { s in entries.firstIndex { $0.step == s } }
                ?? visits.first.flatMap { v in entries.firstIndex { $0.step == v.step } }
                ?? 0
            // Whether the step shown on the path before this one was reached (true: none).
            var previousShownReached = true
            var previousUndetermined = false
            // The journey's own part of each step, a byte (`JourneyPath.bits(at:)`): the
            // entries themselves are shared.
            var bits: [UInt8] = []
            bits.reserveCapacity(entries.count)
            for i in entries.indices {
                let reached = visit(of: entries[i].step, code: pathCodes[i]) != nil
                var b: UInt8 = reached ? 4 : 0
                switch entries[i].status {
                case .shown:
                    if i < startIndex {
                        b |= JourneyPath.statusBits(.beforeStart)
                    } else {
                        if started && !previousUndetermined && previousShownReached { b |= 8 }
                        previousShownReached = reached
                    }
                case .skipped(let why):
                    b |= JourneyPath.statusBits(.skipped)
                    if reached { appendUnique(&deviations, "\(entries[i].step) viewed but not on the expected path: \(why)") }
                case .undetermined:
                    b |= JourneyPath.statusBits(.undetermined)
                    if i >= startIndex { previousUndetermined = true }
                }
                bits.append(b)
            }
            // A step seen without the step shown before it on the path.
            var before: Int?
            for i in bits.indices where bits[i] & 3 == JourneyPath.statusBits(.shown) {
                if let b = before, bits[i] & 4 != 0, bits[b] & 4 == 0 {
                    appendUnique(&deviations, "\(entries[i].step) seen without \(entries[b].step) before it")
                }
                before = i
            }
            path = JourneyPath(entries: entries, bits: bits)
        }
        let first = firstEventAt ?? Timestamp(micros: 0)
        let journey = Journey(
            userID: userID, flow: flow, startedAt: startedAt, startStep: startStep, completedAt: completedAt,
            firstEventAt: first, lastEventAt: lastEventAt ?? first, currentStep: currentStep,
            lane: lane, laneReason: laneReason, values: values, flags: flags, appVersion: appVersion,
            platform: platform, visits: visits, path: path, events: events, unplanned: unplanned,
            backNavigations: backNavigations, signInFailures: signInFailures, deviations: deviations,
            driftSeen: driftSeen, promptOutcomes: promptOutcomes, lastSeqOnCurrentStep: lastSeqOnCurrentStep,
            viewRuns: viewRuns, silences: silences, silenceSinceView: silenceSinceView, lastSeq: lastSeq)
        return (journey, codes)
    }

    private var started: Bool { startedAt != nil }

    /// The journey's expected path and its steps' codes: kept in `paths` by the part of the
    /// context it reads, else worked out.
    private func expectedPath(_ definition: FlowDefinition, paths: ExpectedPaths?) -> (ExpectedPath, [Int32]) {
        func context() -> ConditionContext {
            ConditionContext(values: values.dictionary, flags: flags.dictionary, appVersion: appVersion, platform: platform,
                             startDate: startedAt?.utcDay, flagDefaults: paths?.flagDefaults ?? definition.flagDefaults)
        }
        guard let paths else {
            let path = definition.expectedPath(context())
            return (path, ExpectedPaths.codes(of: path, stepCodes))
        }
        let key = paths.reads.key(value: { i, name in values.value(i, of: paths.readCodes, name: name) },
                                  flagCount: flags.count, flags: { body in flags.forEachSorted(body) },
                                  appVersion: appVersion, platform: platform, startDate: { startedAt?.utcDay })
        // A kept path is read without the context, which only a path worked out anew needs.
        let coded = paths.kept(key: key) ?? paths.coded(key: key, context)
        return (coded.path, coded.codes)
    }

    private func appendUnique(_ list: inout [String], _ text: String) {
        if !list.contains(text) { list.append(text) }
    }

    /// Folds a user's events (any order; they are sorted into fold order) up to `until`.
    public static func journey(of events: [RecordedEvent], definition: FlowDefinition?,
                               until: Timestamp? = nil) -> Journey? {
        fold(events, definition: definition, until: until)?.finish()
    }

    /// The fold of a user's events (any order), before `finish`; nil without events.
    public static func fold(_ events: [RecordedEvent], definition: FlowDefinition?, until: Timestamp? = nil) -> JourneyFold? {
        fold(events, rules: Rules(definition), until: until)
    }

    /// `fold(_:definition:until:)` by `rules` (its flow definition's, built once for all its folds).
    package static func fold(_ events: [RecordedEvent], rules: Rules, until: Timestamp? = nil) -> JourneyFold? {
        // Sort positions by (time, seq), not the events themselves: no copies of events.
        let order = events.foldOrderIndices
        guard let first = order.first else { return nil }
        var fold = JourneyFold(userID: events[first].event.userID, flow: events[first].event.flow, rules: rules)
        var any = false
        // Read in place: an event passed from the array itself would be copied.
        events.withUnsafeBufferPointer { events in
            for i in order {
                if let until, events[i].event.time > until { break }
                fold.apply(events[i], explain: false)
                any = true
            }
        }
        return any ? fold : nil
    }
}

/// Expected paths already worked out for one flow definition, by the part of the context they
/// read (`FlowDefinition.pathContext`): most journeys share a few lanes, answers and flags.
/// Shared by the threads that fold; bounded (it starts over past `Tuning.cachedPaths` contexts).
package final class ExpectedPaths: Sendable {
    package let definition: FlowDefinition
    /// The definition's flag defaults (built once, not once per journey finished).
    package let flagDefaults: [String: Bool]
    private let keys: Set<String>
    /// What the expected path reads of a context: the paths are kept by it.
    package let reads: ConditionReads
    /// The codes of the answers `reads` reads, among the definition's `DefinedKeys`.
    package let readCodes: KeyCodes
    private let paths = BoundedCache<ConditionReads.Key, CodedPath>(limit: Tuning.cachedPaths)
    /// The definition's step codes (`FlowVocabulary.stepCodes`).
    private let stepCodes: [String: Int32]

    /// A path and its steps' codes (-1: a step without one).
    package struct CodedPath: Sendable {
        package var path: ExpectedPath
        package var codes: [Int32]
    }

    package convenience init(_ definition: FlowDefinition) {
        self.init(definition, vocabulary: FlowVocabulary(definition), answerKeys: JourneyNames(definition).answerKeys)
    }

    /// `vocabulary` and `answerKeys`: the definition's.
    package init(_ definition: FlowDefinition, vocabulary: FlowVocabulary, answerKeys: DefinedKeys) {
        self.definition = definition
        flagDefaults = definition.flagDefaults
        keys = definition.conditionKeys
        let reads = ConditionReads(keys)
        self.reads = reads
        readCodes = answerKeys.codes(of: reads.valueKeys)
        stepCodes = vocabulary.stepCodes
    }

    /// The path of `ctx`, whose flag defaults are none or the definition's.
    package func path(for ctx: ConditionContext) -> ExpectedPath {
        guard ctx.flagDefaults.isEmpty || ctx.flagDefaults == flagDefaults else { return definition.expectedPath(ctx) }
        let key = reads.key(values: ctx.values, flags: ctx.flags, appVersion: ctx.appVersion, platform: ctx.platform,
                            startDate: { ctx.startDate })
        return path(key: key) { ctx }
    }

    /// The path kept for `key`, else the one `context()` gives (a context with that key and
    /// the definition's flag defaults).
    package func path(key: ConditionReads.Key, _ context: () -> ConditionContext) -> ExpectedPath {
        coded(key: key, context).path
    }

    /// The path kept for `key`, with its steps' codes; nil when none is kept.
    package func kept(key: ConditionReads.Key) -> CodedPath? { paths.get(key) }

    /// `path(key:_:)`, with its steps' codes.
    package func coded(key: ConditionReads.Key, _ context: () -> ConditionContext) -> CodedPath {
        // Worked out from the part the key keeps, so a path is always the same function of its key.
        paths.value(for: key) {
            let path = definition.expectedPath(definition.pathContext(context(), keys: keys))
            return CodedPath(path: path, codes: ExpectedPaths.codes(of: path, stepCodes))
        }
    }

    /// The codes (`FlowVocabulary.stepCodes`, given as `stepCodes`) of `path`'s steps, -1 for
    /// a step without one.
    package static func codes(of path: ExpectedPath, _ stepCodes: [String: Int32]) -> [Int32] {
        path.entries.map { stepCodes[$0.step] ?? -1 }
    }
}
