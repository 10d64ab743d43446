import FunnelModel

/// What a funnel report reads of a journey, precomputed against the flow definition when the
/// journey is saved (the `journeys.facts` blob): times, lane, current step, the named cohorts
/// and flags it is in, and per step slot whether it was reached, how long the user stayed and
/// its place on the expected path. A report over tens of thousands of users decodes these
/// (no strings, no dictionaries) instead of whole journeys. Valid for the definition the
/// journey was folded with (the row's fingerprint).
public struct JourneyFacts: Sendable, Hashable {
    public var startedAt: Int64?
    public var completedAt: Int64?
    public var firstEventAt: Int64
    public var lastEventAt: Int64
    /// Index into `definition.lanes`, -1 when no lane.
    public var lane: Int
    /// Slot of the current step, -1 when none or not a lane step.
    public var current: Int
    public var appVersion: String?
    /// Bit i: in `definition.cohorts[i]` (i < 64).
    public var cohorts: UInt64
    /// Bit i: `definition.flags[i]` on (defaults applied; i < 64).
    public var flagsOn: UInt64
    /// Per slot: 1 reached, 2 on the path, 4 eligible, 8 path says reached, 16 skipped, 32 before start.
    public var bits: [UInt8]
    /// Per slot: seconds on the step (first visit), NaN when none.
    public var seconds: [Double]
    /// How the journey departs from the definition (empty for most).
    public var drift: [DriftFact]
    /// Per run of views of one step (`Journey.viewRuns`, fold order): its slot, or -1 - i for
    /// `otherRunSteps[i]` (a step on no lane).
    public var runSlots: [Int]
    /// Per run: the time of its first view (microseconds).
    public var runMicros: [Int64]
    /// The steps of runs on no lane, each once.
    public var otherRunSteps: [String]
    /// The slots of the expected path's steps that are not skipped, in path order (-1: a
    /// step with no slot).
    public var pathSlots: [Int]
    /// Per view after a long silence (`Journey.silences`): its run, whether it starts it,
    /// and the silence (microseconds).
    public var silenceRuns: [Int]
    public var silenceStartsRun: [Bool]
    public var silenceMicros: [Int64]
    /// The seq of the last event in fold order.
    public var lastSeq: Int64?
    public var platform: String?

    /// The shortest silence the facts keep (microseconds): returns read from them need an
    /// idle window at least this long.
    public static var keptSilenceMicros: Int64 { Tuning.keptSilenceMicros }

    /// Every step of every lane, in lane order, first occurrence: the slot numbering.
    public static func slots(_ definition: FlowDefinition) -> [String] {
        var seen = Set<String>()
        var out: [String] = []
        for lane in definition.lanes {
            for ls in lane.steps where seen.insert(ls.id).inserted { out.append(ls.id) }
        }
        return out
    }

    /// Each slot's number by its step (`slots(_:)`).
    public static func slotIndex(_ definition: FlowDefinition) -> [String: Int] {
        var index: [String: Int] = [:]
        for (i, step) in slots(definition).enumerated() { index[step] = i }
        return index
    }

    /// Whether facts can stand for journeys of this definition (bit fields are 64 wide).
    public static func supports(_ definition: FlowDefinition) -> Bool {
        definition.cohorts.count <= 64 && definition.flags.count <= 64
    }

    /// What facts need of a definition, worked out once for many journeys: its flag
    /// defaults, its cohorts' conditions, parsed (nil: one that does not parse), and the
    /// cohort and flag bits worked out so far, kept by the part of the context they read.
    /// Shared by reference: each journey's facts read it, none copies it.
    package final class Prepared: Sendable {
        package let flagDefaults: [String: Bool]
        package let cohorts: [Condition?]
        package let vocabulary: FlowVocabulary
        /// The codes of the answers `reads` reads, among the definition's `DefinedKeys`.
        let readCodes: KeyCodes
        /// The slot of each step code (`FlowVocabulary.stepCodes`), -1 for a step on no lane.
        let slotOfCode: [Int]
        /// What the cohorts' conditions read of a context.
        let reads: ConditionReads
        let bits = BoundedCache<ConditionReads.Key, ContextBits>(limit: Tuning.cachedPaths)

        package convenience init(_ definition: FlowDefinition) {
            self.init(definition, vocabulary: FlowVocabulary(definition), slots: JourneyFacts.slotIndex(definition),
                      answerKeys: JourneyNames(definition).answerKeys)
        }

        /// `vocabulary`, `slots` (`slotIndex`) and `answerKeys`: the definition's, when the
        /// caller has them.
        package init(_ definition: FlowDefinition, vocabulary: FlowVocabulary, slots: [String: Int], answerKeys: DefinedKeys) {
            flagDefaults = definition.flagDefaults
            cohorts = definition.cohorts.map { try? Condition(parsing: $0.where) }
            self.vocabulary = vocabulary
            slotOfCode = definition.steps.map { slots[$0.id] ?? -1 }
            let reads = ConditionReads(Set(cohorts.compactMap { $0 }.flatMap(\.keys)))
            self.reads = reads
            readCodes = answerKeys.codes(of: reads.valueKeys)
        }
    }

    /// A journey's cohorts and flags on, as bits (`cohorts`, `flagsOn`).
    struct ContextBits: Sendable {
        var cohorts: UInt64 = 0
        var flagsOn: UInt64 = 0

        /// Worked out from the journey's whole context.
        init(_ ctx: ConditionContext, definition: FlowDefinition, prepared: Prepared) {
            for (i, cond) in prepared.cohorts.enumerated() where i < 64 {
                if let cond, cond.evaluate(ctx) == true { cohorts |= 1 << UInt64(i) }
            }
            for (i, f) in definition.flags.enumerated() where i < 64 && ctx.isFlagOn(f.id) { flagsOn |= 1 << UInt64(i) }
        }
    }

    public init(_ j: Journey, definition: FlowDefinition, slots: [String: Int]) {
        self.init(j, definition: definition, slots: slots, prepared: Prepared(definition))
    }

    /// The journey borrowed (an initializer takes its own by default: a copy of each of its parts).
    package init(_ j: borrowing Journey, definition: FlowDefinition, slots: [String: Int], prepared: Prepared,
                 codes: JourneyCodes? = nil) {
        let slotOfCode = prepared.slotOfCode
        let visitCodes = codes?.visits ?? [], pathCodes = codes?.path ?? [], runCodes = codes?.runs ?? []
        /// The slot of the journey's step `step`, the `i`th of `codes` (none: looked up). The
        /// name is read only for a step without a code: names are shared by every journey,
        /// and a copy is an atomic retain another thread contends.
        func slotOf(_ step: @autoclosure () -> String, _ i: Int, in codes: [Int32]) -> Int? {
            guard i < codes.count, codes[i] >= 0 else { return slots[step()] }
            let k = slotOfCode[Int(codes[i])]
            return k >= 0 ? k : nil
        }
        startedAt = j.startedAt?.micros
        completedAt = j.completedAt?.micros
        firstEventAt = j.firstEventAt.micros
        lastEventAt = j.lastEventAt.micros
        lane = j.lane.flatMap { l in definition.lanes.firstIndex { $0.id == l } } ?? -1
        current = j.currentStep.flatMap { slots[$0] } ?? -1
        appVersion = j.appVersion
        // Both read the context only through the cohorts' keys and the flags (defaults fixed).
        let key = prepared.reads.key(value: { i, name in j.values.value(i, of: prepared.readCodes, name: name) },
                                     flagCount: j.flags.count, flags: { body in j.flags.forEachSorted(body) },
                                     appVersion: j.appVersion, platform: j.platform,
                                     startDate: { j.startedAt?.utcDay })
        // Kept bits are read without the journey's context, which only bits worked out anew need.
        let contextBits = prepared.bits.get(key) ?? prepared.bits.value(for: key) {
            ContextBits(j.conditionContext(flagDefaults: prepared.flagDefaults), definition: definition, prepared: prepared)
        }
        cohorts = contextBits.cohorts
        flagsOn = contextBits.flagsOn
        bits = [UInt8](repeating: 0, count: slots.count)
        seconds = [Double](repeating: .nan, count: slots.count)
        for i in j.visits.indices {
            guard let k = slotOf(j.visits[i].step, i, in: visitCodes), bits[k] & 1 == 0 else { continue }
            bits[k] |= 1
            if let s = j.visits[i].secondsOnStep { seconds[k] = s }
        }
        var pathSeen = [Bool](repeating: false, count: slots.count)
        pathSlots = []
        pathSlots.reserveCapacity(j.path.count)
        let skipped = JourneyPath.statusBits(.skipped), beforeStart = JourneyPath.statusBits(.beforeStart)
        for i in j.path.indices {
            let slot = slotOf(j.path.step(at: i), i, in: pathCodes)
            let stepBits = j.path.bits(at: i)
            let status = stepBits & 3
            if status != skipped { pathSlots.append(slot ?? -1) }
            guard let k = slot, !pathSeen[k] else { continue }
            pathSeen[k] = true
            var b: UInt8 = 2
            if stepBits & 8 != 0 { b |= 4 }
            if stepBits & 4 != 0 { b |= 8 }
            if status == skipped { b |= 16 }
            if status == beforeStart { b |= 32 }
            bits[k] |= b
        }
        drift = DriftFact.facts(of: j, vocabulary: prepared.vocabulary, visitCodes: visitCodes)
        runSlots = []
        runMicros = []
        otherRunSteps = []
        silenceRuns = j.silences.map(\.run)
        silenceStartsRun = j.silences.map(\.startsRun)
        silenceMicros = j.silences.map(\.micros)
        lastSeq = j.lastSeq
        platform = j.platform
        runSlots.reserveCapacity(j.viewRuns.count)
        runMicros.reserveCapacity(j.viewRuns.count)
        for i in j.viewRuns.indices {
            // Not `??`: its closure would take the facts being built, a copy of each of their arrays.
            let slot: Int
            if let k = slotOf(j.viewRuns[i].step, i, in: runCodes) {
                slot = k
            } else {
                slot = otherRunSlot(j.viewRuns[i].step)
            }
            runSlots.append(slot)
            runMicros.append(j.viewRuns[i].at.micros)
        }
    }

    /// The run slot of a step on no lane: -1 - its index in `otherRunSteps`, added when new.
    private mutating func otherRunSlot(_ step: String) -> Int {
        if let i = otherRunSteps.firstIndex(of: step) { return -1 - i }
        otherRunSteps.append(step)
        return -otherRunSteps.count
    }

    /// The bit of `cohort` in `cohorts` (0: not a cohort of `definition`, or past the 64th).
    public static func cohortMask(_ cohort: FlowDefinition.Cohort, in definition: FlowDefinition) -> UInt64 {
        guard let i = definition.cohorts.firstIndex(of: cohort), i < 64 else { return 0 }
        return 1 << UInt64(i)
    }

    public func binary() -> [UInt8] {
        var w = BinaryWriter(capacity: Tuning.factsBytesReserved)
        w.byte(5)
        w.byte((startedAt != nil ? 1 : 0) | (completedAt != nil ? 2 : 0))
        if let startedAt { w.int(startedAt) }
        if let completedAt { w.int(completedAt) }
        w.int(firstEventAt)
        w.int(lastEventAt)
        w.int(Int64(lane))
        w.int(Int64(current))
        w.string(appVersion)
        w.uint(cohorts)
        w.uint(flagsOn)
        w.uint(UInt64(bits.count))
        // Version 2: seconds as whole microseconds when they are (bit 64), else the double
        // (bits 64 and 128); version 1 wrote every one as a double.
        for (k, b) in bits.enumerated() {
            let s = seconds[k]
            if s.isNaN {
                w.byte(b)
            } else if let micros = BinaryWriter.wholeMicros(s) {
                w.byte(b | 64)
                w.uint(micros)
            } else {
                w.byte(b | 64 | 128)
                w.double(s)
            }
        }
        // Version 3: the drift facts.
        w.uint(UInt64(drift.count))
        for d in drift {
            w.byte(d.kind.rawValue)
            w.string(d.name)
            w.string(d.detail)
            w.int(d.at)
        }
        // Version 4: the view runs, each its slot + 1 (0: a step on no lane, its name
        // following) and its time from `firstEventAt`.
        w.uint(UInt64(runSlots.count))
        for (k, slot) in runSlots.enumerated() {
            if slot >= 0 {
                w.uint(UInt64(slot) + 1)
            } else {
                w.byte(0)
                w.string(otherRunSteps[-1 - slot])
            }
            w.int(runMicros[k] - firstEventAt)
        }
        // Version 5: the path's slots (each + 1, 0 for none), the silences (run × 2 + 1 when
        // it starts the run, and the length), the last seq (+ 1, 0 for none), the platform.
        w.uint(UInt64(pathSlots.count))
        for slot in pathSlots { w.uint(UInt64(max(slot + 1, 0))) }
        w.uint(UInt64(silenceRuns.count))
        for (k, run) in silenceRuns.enumerated() {
            w.uint(UInt64(run) * 2 + (silenceStartsRun[k] ? 1 : 0))
            w.int(silenceMicros[k])
        }
        w.seq(lastSeq)
        w.string(platform)
        return w.finish()
    }

    public init(binary b: UnsafeRawBufferPointer) throws {
        self.init(empty: ())
        try decode(b)
    }

    private init(empty: Void) {
        startedAt = nil
        completedAt = nil
        firstEventAt = 0
        lastEventAt = 0
        lane = -1
        current = -1
        appVersion = nil
        cohorts = 0
        flagsOn = 0
        bits = []
        seconds = []
        drift = []
        runSlots = []
        runMicros = []
        otherRunSteps = []
        pathSlots = []
        silenceRuns = []
        silenceStartsRun = []
        silenceMicros = []
        lastSeq = nil
        platform = nil
    }

    /// An empty value to `decode` into.
    public static var empty: JourneyFacts { JourneyFacts(empty: ()) }

    /// The time of the first event of the journey whose facts are `b`, read without decoding
    /// the rest: an as-of read leaves out, unread, a journey that began after it.
    public static func firstEventAt(_ b: UnsafeRawBufferPointer) throws -> Int64 {
        var r = BinaryReader(b)
        let version = try r.byte()
        guard (1...5).contains(version) else { throw JourneyDecodingError(offset: 0, reason: "unknown facts version \(version)") }
        let has = try r.byte()
        if has & 1 != 0 { _ = try r.int() }
        if has & 2 != 0 { _ = try r.int() }
        return try r.int()
    }

    /// Replaces this value with the decoded bytes, reusing its arrays (no allocation per row
    /// when decoding many).
    public mutating func decode(_ b: UnsafeRawBufferPointer) throws {
        var r = BinaryReader(b)
        let version = try r.byte()
        guard (1...5).contains(version) else { throw JourneyDecodingError(offset: 0, reason: "unknown facts version \(version)") }
        let has = try r.byte()
        startedAt = has & 1 != 0 ? try r.int() : nil
        completedAt = has & 2 != 0 ? try r.int() : nil
        firstEventAt = try r.int()
        lastEventAt = try r.int()
        lane = Int(try r.int())
        current = Int(try r.int())
        appVersion = try r.optionalString()
        cohorts = try r.uint()
        flagsOn = try r.uint()
        let n = try r.count()
        if bits.count != n {
            bits = [UInt8](repeating: 0, count: n)
            seconds = [Double](repeating: .nan, count: n)
        }
        // Written in place: every journey of a flow has the same number of slots.
        try bits.withUnsafeMutableBufferPointer { bits in
            try seconds.withUnsafeMutableBufferPointer { seconds in
                for k in 0..<n {
                    let b = try r.byte()
                    bits[k] = b & 63
                    if b & 64 == 0 {
                        seconds[k] = .nan
                    } else if version == 1 || b & 128 != 0 {
                        seconds[k] = try r.double()
                    } else {
                        seconds[k] = try r.wholeMicros()
                    }
                }
            }
        }
        if !drift.isEmpty { drift.removeAll(keepingCapacity: true) }
        if version >= 3 {
            let count = try r.count()
            for _ in 0..<count {
                let offset = r.offset
                guard let kind = DriftFact.Kind(rawValue: try r.byte()) else {
                    throw JourneyDecodingError(offset: offset, reason: "unknown drift kind")
                }
                drift.append(DriftFact(kind: kind, name: try r.string(), detail: try r.string(), at: try r.int()))
            }
        }
        if !runSlots.isEmpty {
            runSlots.removeAll(keepingCapacity: true)
            runMicros.removeAll(keepingCapacity: true)
        }
        if !otherRunSteps.isEmpty { otherRunSteps.removeAll(keepingCapacity: true) }
        if version >= 4 {
            let count = try r.count()
            for _ in 0..<count {
                let offset = r.offset
                let code = try r.uint()
                if code > 0 {
                    guard code <= UInt64(n) else { throw JourneyDecodingError(offset: offset, reason: "a view run's slot out of range") }
                    runSlots.append(Int(code - 1))
                } else {
                    runSlots.append(otherRunSlot(try r.string()))
                }
                runMicros.append(firstEventAt &+ (try r.int()))
            }
        }
        if !pathSlots.isEmpty { pathSlots.removeAll(keepingCapacity: true) }
        if !silenceRuns.isEmpty {
            silenceRuns.removeAll(keepingCapacity: true)
            silenceStartsRun.removeAll(keepingCapacity: true)
            silenceMicros.removeAll(keepingCapacity: true)
        }
        lastSeq = nil
        platform = nil
        if version >= 5 {
            for _ in 0..<(try r.count()) {
                let offset = r.offset
                let code = try r.uint()
                guard code <= UInt64(n) else { throw JourneyDecodingError(offset: offset, reason: "a path slot out of range") }
                pathSlots.append(Int(code) - 1)
            }
            for _ in 0..<(try r.count()) {
                let offset = r.offset
                let code = try r.uint()
                guard code / 2 < UInt64(runSlots.count) else { throw JourneyDecodingError(offset: offset, reason: "a silence's run out of range") }
                silenceRuns.append(Int(code / 2))
                silenceStartsRun.append(code & 1 == 1)
                silenceMicros.append(try r.int())
            }
            lastSeq = try r.optionalSeq()
            platform = try r.optionalString()
        }
        guard r.atEnd else { throw JourneyDecodingError(offset: r.offset, reason: "trailing bytes in facts") }
    }
}
