import FunnelModel
import LogFiles

/// The compact stored form of a `Journey` (the `journeys.data` blob): varints, length-prefixed
/// UTF-8 and tagged JSON values, in field order. A report decodes tens of thousands of these,
/// so decoding is a single pass over the bytes without Foundation. Every field round-trips
/// (timestamps keep their offsets, numbers their literal text).
///
/// Version 2 (written now) stores a name the flow definition has (a step, a collected key or
/// value, a flag, a lane: `JourneyNames`) as its index there and other strings in full,
/// timestamps after the first as differences from `firstEventAt`, seconds on a step as whole
/// microseconds when they are, and a path reason met before in the same journey as a
/// back-reference: about a third of the bytes of version 1, which stores every name and
/// timestamp in full and still decodes. Reading version 2 needs the names of the definition
/// the row was folded with (`journeys.definition`). Version 3 is version 2 followed by
/// `driftSeen`; version 4 is version 3 followed by `promptOutcomes`; version 5 is version 4
/// followed by `lastSeqOnCurrentStep` (0 for none, else the seq + 1); version 6 is version 5
/// followed by `viewRuns` (their count, then each run's step as a name and its time); version
/// 7 is version 6 followed by `silences` (their count, then each one's run × 2 + 1 when it
/// starts the run, and its length), `silenceSinceView` and `lastSeq` (0 for none, else + 1).
extension Journey {
    package static let binaryVersion: UInt8 = 7

    /// The journey's bytes, and after them the fold's resume state when given. `names`: those
    /// of the definition the journey was folded with (reading the bytes back needs the same).
    public func binary(resume: JourneyFold.Resume? = nil, names: JourneyNames = .none) -> [UInt8] {
        binary(resume: resume, names: names, codes: nil)
    }

    /// `binary(resume:names:)`, writing the steps of visits, view runs and the path by their
    /// codes (`JourneyFold.finishCoded`; the fold's definition is the one `names` are of).
    package func binary(resume: JourneyFold.Resume?, names: JourneyNames, codes: JourneyCodes?) -> [UInt8] {
        let visitCodes = codes?.visits ?? [], pathCodes = codes?.path ?? [], runCodes = codes?.runs ?? []
        var w = BinaryWriter(capacity: Tuning.journeyBytesReserved)
        w.names = names
        w.byte(Journey.binaryVersion)
        w.string(userID)
        w.string(flow)
        w.timestamp(firstEventAt)
        let base = firstEventAt
        w.timestamp(startedAt, from: base)
        w.name(startStep)
        w.timestamp(completedAt, from: base)
        w.timestamp(lastEventAt, from: base)
        w.name(currentStep)
        w.name(lane)
        w.string(laneReason)
        w.values(values)
        w.values(flags)
        w.string(appVersion)
        w.string(platform)
        // Fields read in place, a step's name only when it has no code: the names are shared
        // by every journey of the flow, and a copy is an atomic retain another thread contends.
        w.uint(UInt64(visits.count))
        for i in visits.indices {
            w.name(visits[i].step, i, of: visitCodes)
            w.timestamp(visits[i].firstViewedAt, from: base)
            w.uint(UInt64(visits[i].views))
            w.seconds(visits[i].secondsOnStep)
        }
        w.uint(UInt64(path.count))
        var reasons: [String] = []
        for i in path.indices {
            w.name(path.step(at: i), i, of: pathCodes)
            w.byte(path.bits(at: i))
            // 0: none; 1: a new reason follows; k + 2: the k-th reason of this path.
            if let reason = path.reason(at: i) {
                if let k = reasons.firstIndex(of: reason) {
                    w.uint(UInt64(k) + 2)
                } else {
                    w.byte(1)
                    w.string(reason)
                    reasons.append(reason)
                }
            } else {
                w.byte(0)
            }
        }
        w.uint(UInt64(events))
        w.uint(UInt64(unplanned))
        w.uint(UInt64(backNavigations))
        w.uint(UInt64(signInFailures))
        w.uint(UInt64(deviations.count))
        for d in deviations { w.string(d) }
        w.uint(UInt64(driftSeen.count))
        for (key, time) in driftSeen.sorted(by: { $0.key < $1.key }) {
            w.string(key)
            w.timestamp(time, from: base)
        }
        w.uint(UInt64(promptOutcomes.count))
        for (step, outcomes) in promptOutcomes.sorted(by: { $0.key < $1.key }) {
            w.name(step)
            w.uint(UInt64(outcomes.count))
            for o in outcomes { w.string(o) }
        }
        w.seq(lastSeqOnCurrentStep)
        w.uint(UInt64(viewRuns.count))
        for i in viewRuns.indices {
            w.name(viewRuns[i].step, i, of: runCodes)
            w.timestamp(viewRuns[i].at, from: base)
        }
        w.uint(UInt64(silences.count))
        for s in silences {
            w.uint(UInt64(s.run) * 2 + (s.startsRun ? 1 : 0))
            w.int(s.micros)
        }
        w.int(silenceSinceView)
        w.seq(lastSeq)
        if let resume {
            w.byte(1)
            w.timestamp(resume.currentStepSince)
            w.uint(UInt64(resume.deviations.count))
            for d in resume.deviations { w.string(d) }
        }
        return w.finish()
    }

    /// Decodes `binary(resume:names:)` output with its resume state (nil when it has none).
    public static func decode(binary b: UnsafeRawBufferPointer, names: JourneyNames = .none) throws -> (Journey, JourneyFold.Resume?) {
        var r = BinaryReader(b)
        r.names = names
        let journey = try Journey(reader: &r)
        if r.atEnd { return (journey, nil) }
        guard try r.byte() == 1 else { throw JourneyDecodingError(offset: r.offset - 1, reason: "unknown section") }
        let since = try r.optionalTimestamp()
        let n = try r.count()
        var deviations: [String] = []
        for _ in 0..<n { deviations.append(try r.string()) }
        guard r.atEnd else { throw JourneyDecodingError(offset: r.offset, reason: "trailing bytes") }
        return (journey, JourneyFold.Resume(currentStepSince: since, deviations: deviations))
    }

    /// Decodes `binary(resume:names:)` output (the journey only); throws a
    /// `JourneyDecodingError` on bytes it did not write.
    public init(binary b: UnsafeRawBufferPointer, names: JourneyNames = .none) throws {
        var r = BinaryReader(b)
        r.names = names
        try self.init(reader: &r)
    }

    /// Decodes like `init(binary:names:)`, sharing equal strings and equal value/flag objects
    /// through `cache` across journeys (fewer allocations when decoding many).
    public init(binary b: UnsafeRawBufferPointer, cache: JourneyDecodingCache, names: JourneyNames = .none) throws {
        var r = BinaryReader(b)
        r.cache = cache
        r.names = names
        try self.init(reader: &r)
    }

    /// The time of the first event of the journey whose bytes are `b`, read without decoding
    /// the rest (version 1, which stores it later, is decoded whole): an as-of read leaves
    /// out, unread, a journey that began after it.
    public static func firstEventAt(binary b: UnsafeRawBufferPointer) throws -> Timestamp {
        var r = BinaryReader(b)
        let version = try r.byte()
        guard version >= 2 else { return try Journey(binary: b).firstEventAt }
        guard version <= binaryVersion else { throw JourneyDecodingError(offset: 0, reason: "unknown version \(version)") }
        try r.skipString()
        try r.skipString()
        return try r.timestamp()
    }

    package init(reader r: inout BinaryReader) throws {
        switch try r.byte() {
        case 1: try self.init(version1: &r)
        case 2:
            r.namesAsIndexes = true
            try self.init(version2: &r)
        case let version where (3...7).contains(version):
            r.namesAsIndexes = true
            try self.init(version2: &r)
            let base = firstEventAt
            for _ in 0..<(try r.count()) {
                let key = try r.string()
                driftSeen[key] = try r.timestamp(from: base)
            }
            if version >= 4 {
                for _ in 0..<(try r.count()) {
                    let step = try r.name()
                    let n = try r.count()
                    var outcomes: [String] = []
                    outcomes.reserveCapacity(n)
                    for _ in 0..<n { outcomes.append(try r.string()) }
                    promptOutcomes[step] = outcomes
                }
            }
            if version >= 5 {
                lastSeqOnCurrentStep = try r.optionalSeq()
            }
            if version >= 6 {
                let n = try r.count()
                viewRuns.reserveCapacity(n)
                for _ in 0..<n {
                    let step = try r.name()
                    viewRuns.append(ViewRun(step: step, at: try r.timestamp(from: base)))
                }
            }
            if version >= 7 {
                let n = try r.count()
                silences.reserveCapacity(n)
                for _ in 0..<n {
                    let code = try r.uint()
                    guard code / 2 < UInt64(viewRuns.count) else {
                        throw JourneyDecodingError(offset: r.offset, reason: "a silence's run out of range")
                    }
                    silences.append(Silence(run: Int(code / 2), startsRun: code & 1 == 1, micros: try r.int()))
                }
                silenceSinceView = try r.int()
                lastSeq = try r.optionalSeq()
            }
        case let version: throw JourneyDecodingError(offset: 0, reason: "unknown version \(version)")
        }
    }

    private init(version2 r: inout BinaryReader) throws {
        userID = try r.string()
        flow = try r.string()
        firstEventAt = try r.timestamp()
        let base = firstEventAt
        startedAt = try r.optionalTimestamp(from: base)
        startStep = try r.optionalName()
        completedAt = try r.optionalTimestamp(from: base)
        lastEventAt = try r.timestamp(from: base)
        currentStep = try r.optionalName()
        lane = try r.optionalName()
        laneReason = try r.string()
        values = try r.values()
        r.sharesObjects = true
        flags = KeyedValues(try r.object())
        r.sharesObjects = false
        appVersion = try r.optionalString()
        platform = try r.optionalString()
        let visitCount = try r.count()
        visits = []
        visits.reserveCapacity(visitCount)
        for _ in 0..<visitCount {
            let step = try r.name()
            let first = try r.timestamp(from: base)
            let views = try r.tally()
            visits.append(StepVisit(step: step, firstViewedAt: first, views: views, secondsOnStep: try r.seconds()))
        }
        let pathCount = try r.count()
        var path: [PathStep] = []
        path.reserveCapacity(pathCount)
        var reasons: [String] = []
        for _ in 0..<pathCount {
            let step = try r.name()
            let bits = try r.byte()
            let reason: String?
            switch try r.uint() {
            case 0: reason = nil
            case 1:
                let s = try r.string()
                reasons.append(s)
                reason = s
            case let k:
                guard k - 2 < UInt64(reasons.count) else {
                    throw JourneyDecodingError(offset: r.offset, reason: "reason \(k - 2) not met before")
                }
                reason = reasons[Int(k - 2)]
            }
            path.append(PathStep(step: step, status: Self.pathStatus(bits), reason: reason,
                                 reached: bits & 4 != 0, eligible: bits & 8 != 0))
        }
        self.path = JourneyPath(path)
        (events, unplanned, backNavigations, signInFailures, deviations) = try Self.tail(&r)
    }

    /// Version 1: every step name and timestamp in full.
    private init(version1 r: inout BinaryReader) throws {
        userID = try r.string()
        flow = try r.string()
        startedAt = try r.optionalTimestamp()
        startStep = try r.optionalString()
        completedAt = try r.optionalTimestamp()
        firstEventAt = try r.timestamp()
        lastEventAt = try r.timestamp()
        currentStep = try r.optionalString()
        lane = try r.optionalString()
        laneReason = try r.string()
        values = KeyedValues(try r.object())
        // Not shared through the cache: it holds version 2's objects, keyed by their bytes.
        flags = KeyedValues(try r.object())
        appVersion = try r.optionalString()
        platform = try r.optionalString()
        let visitCount = try r.count()
        visits = []
        visits.reserveCapacity(visitCount)
        for _ in 0..<visitCount {
            let step = try r.string()
            let first = try r.timestamp()
            let views = try r.tally()
            let seconds: Double? = try r.byte() == 1 ? try r.double() : nil
            visits.append(StepVisit(step: step, firstViewedAt: first, views: views, secondsOnStep: seconds))
        }
        let pathCount = try r.count()
        var path: [PathStep] = []
        path.reserveCapacity(pathCount)
        for _ in 0..<pathCount {
            let step = try r.string()
            let bits = try r.byte()
            path.append(PathStep(step: step, status: Self.pathStatus(bits), reason: try r.optionalString(),
                                 reached: bits & 4 != 0, eligible: bits & 8 != 0))
        }
        self.path = JourneyPath(path)
        (events, unplanned, backNavigations, signInFailures, deviations) = try Self.tail(&r)
    }

    /// The counts and deviations that end both versions.
    private static func tail(_ r: inout BinaryReader) throws -> (Int, Int, Int, Int, [String]) {
        let events = try r.tally()
        let unplanned = try r.tally()
        let backNavigations = try r.tally()
        let signInFailures = try r.tally()
        let deviationCount = try r.count()
        var deviations: [String] = []
        deviations.reserveCapacity(deviationCount)
        for _ in 0..<deviationCount { deviations.append(try r.string()) }
        return (events, unplanned, backNavigations, signInFailures, deviations)
    }

    package static func pathStatus(_ bits: UInt8) -> PathStep.Status {
        switch bits & 3 {
        case 0: return .shown
        case 1: return .skipped
        case 2: return .undetermined
        default: return .beforeStart
        }
    }

    public init(binary bytes: [UInt8], names: JourneyNames = .none) throws {
        self = try bytes.withUnsafeBytes { try Journey(binary: $0, names: names) }
    }
}
