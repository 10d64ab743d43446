import FunnelModel
import EventLog

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
/// the row was folded with (`journeys.definition`).
extension Journey {
    static let binaryVersion: UInt8 = 2

    /// The journey's bytes, and after them the fold's resume state when given. `names`: those
    /// of the definition the journey was folded with (reading the bytes back needs the same).
    public func binary(resume: JourneyFold.Resume? = nil, names: JourneyNames = .none) -> [UInt8] {
        var w = BinaryWriter()
        w.bytes.reserveCapacity(512)
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
        w.object(values)
        w.object(flags)
        w.string(appVersion)
        w.string(platform)
        w.uint(UInt64(visits.count))
        for v in visits {
            w.name(v.step)
            w.timestamp(v.firstViewedAt, from: base)
            w.uint(UInt64(v.views))
            w.seconds(v.secondsOnStep)
        }
        w.uint(UInt64(path.count))
        var reasons: [String] = []
        for p in path {
            w.name(p.step)
            let status: UInt8
            switch p.status {
            case .shown: status = 0
            case .skipped: status = 1
            case .undetermined: status = 2
            case .beforeStart: status = 3
            }
            w.byte(status | (p.reached ? 4 : 0) | (p.eligible ? 8 : 0))
            // 0: none; 1: a new reason follows; k + 2: the k-th reason of this path.
            if let reason = p.reason {
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
        if let resume {
            w.byte(1)
            w.timestamp(resume.currentStepSince)
            w.uint(UInt64(resume.deviations.count))
            for d in resume.deviations { w.string(d) }
        }
        return w.bytes
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

    init(reader r: inout BinaryReader) throws {
        switch try r.byte() {
        case 1: try self.init(version1: &r)
        case Journey.binaryVersion:
            r.namesAsIndexes = true
            try self.init(version2: &r)
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
        values = try r.object()
        r.sharesObjects = true
        flags = try r.object()
        r.sharesObjects = false
        appVersion = try r.optionalString()
        platform = try r.optionalString()
        let visitCount = try r.count()
        visits = []
        visits.reserveCapacity(visitCount)
        for _ in 0..<visitCount {
            let step = try r.name()
            let first = try r.timestamp(from: base)
            let views = Int(try r.uint())
            visits.append(StepVisit(step: step, firstViewedAt: first, views: views, secondsOnStep: try r.seconds()))
        }
        let pathCount = try r.count()
        path = []
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
        values = try r.object()
        // Not shared through the cache: it holds version 2's objects, keyed by their bytes.
        flags = try r.object()
        appVersion = try r.optionalString()
        platform = try r.optionalString()
        let visitCount = try r.count()
        visits = []
        visits.reserveCapacity(visitCount)
        for _ in 0..<visitCount {
            let step = try r.string()
            let first = try r.timestamp()
            let views = Int(try r.uint())
            let seconds: Double? = try r.byte() == 1 ? try r.double() : nil
            visits.append(StepVisit(step: step, firstViewedAt: first, views: views, secondsOnStep: seconds))
        }
        let pathCount = try r.count()
        path = []
        path.reserveCapacity(pathCount)
        for _ in 0..<pathCount {
            let step = try r.string()
            let bits = try r.byte()
            path.append(PathStep(step: step, status: Self.pathStatus(bits), reason: try r.optionalString(),
                                 reached: bits & 4 != 0, eligible: bits & 8 != 0))
        }
        (events, unplanned, backNavigations, signInFailures, deviations) = try Self.tail(&r)
    }

    /// The counts and deviations that end both versions.
    private static func tail(_ r: inout BinaryReader) throws -> (Int, Int, Int, Int, [String]) {
        let events = Int(try r.uint())
        let unplanned = Int(try r.uint())
        let backNavigations = Int(try r.uint())
        let signInFailures = Int(try r.uint())
        let deviationCount = try r.count()
        var deviations: [String] = []
        deviations.reserveCapacity(deviationCount)
        for _ in 0..<deviationCount { deviations.append(try r.string()) }
        return (events, unplanned, backNavigations, signInFailures, deviations)
    }

    private static func pathStatus(_ bits: UInt8) -> PathStep.Status {
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

/// The names a flow definition gives, in a fixed order: its step ids, then the keys and values
/// its steps collect, its flags and lanes. The stored form of a journey folded with the
/// definition writes these as their index here.
public struct JourneyNames: Sendable {
    public let names: [String]
    let index: [String: Int]

    public init(_ definition: FlowDefinition?) {
        var names = definition?.steps.map(\.id) ?? []
        if let definition {
            for step in definition.steps {
                for c in step.collects { names += [c.key] + (c.values ?? []) }
            }
            names += definition.flags.map(\.id)
            names += definition.laneKey.map { [$0] } ?? []
            names += definition.lanes.map(\.id)
        }
        self.init(names: names)
    }

    init(names: [String]) {
        self.names = names
        var index: [String: Int] = [:]
        for (i, name) in names.enumerated() where index[name] == nil { index[name] = i }
        self.index = index
    }

    /// No definition: every name is written in full.
    public static let none = JourneyNames(nil)
}

/// Stored journey bytes that do not decode.
public struct JourneyDecodingError: Error, Sendable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "journey bytes do not decode at offset \(offset): \(reason)" }
}

struct BinaryWriter {
    var bytes: [UInt8] = []
    /// The names a journey's object keys, string values and steps are written as indexes
    /// into (`.none`: every one in full).
    var names = JourneyNames.none

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func uint(_ v: UInt64) { Varint.append(v, to: &bytes) }

    mutating func int(_ v: Int64) { uint(Varint.zigzag(v)) }

    mutating func double(_ d: Double) {
        var bits = d.bitPattern
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }

    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { u in
            uint(UInt64(u.count))
            bytes.append(contentsOf: u)
        }
    }

    /// Optional strings: 0 for nil, else length + 1.
    mutating func string(_ s: String?) {
        guard var s else { bytes.append(0); return }
        s.withUTF8 { u in
            uint(UInt64(u.count) + 1)
            bytes.append(contentsOf: u)
        }
    }

    mutating func timestamp(_ t: Timestamp) {
        int(t.micros)
        int(Int64(t.offsetSeconds))
    }

    mutating func timestamp(_ t: Timestamp?) {
        guard let t else { bytes.append(0); return }
        bytes.append(1)
        timestamp(t)
    }

    /// A timestamp as its difference from `base` (micros and offset).
    mutating func timestamp(_ t: Timestamp, from base: Timestamp) {
        int(t.micros &- base.micros)
        int(Int64(t.offsetSeconds) - Int64(base.offsetSeconds))
    }

    mutating func timestamp(_ t: Timestamp?, from base: Timestamp) {
        guard let t else { bytes.append(0); return }
        bytes.append(1)
        timestamp(t, from: base)
    }

    /// A name (version 2): 0 for none, 1 and its text for one `names` does not have, k + 2
    /// for its k-th.
    mutating func name(_ s: String?) {
        guard let s else { bytes.append(0); return }
        if let k = names.index[s] {
            uint(UInt64(k) + 2)
        } else {
            bytes.append(1)
            string(s)
        }
    }

    /// Seconds: 0 for none, 1 and whole microseconds when they give back the same value,
    /// else 2 and the double's bits.
    mutating func seconds(_ s: Double?) {
        guard let s else { bytes.append(0); return }
        if let micros = BinaryWriter.wholeMicros(s) {
            bytes.append(1)
            uint(micros)
        } else {
            bytes.append(2)
            double(s)
        }
    }

    /// `s` as microseconds when `Double(micros) / 1_000_000` gives back exactly `s`.
    static func wholeMicros(_ s: Double) -> UInt64? {
        let micros = (s * 1_000_000).rounded()
        guard micros >= 0, micros < 9_007_199_254_740_992, Double(Int64(micros)) / 1_000_000 == s else { return nil }
        return UInt64(micros)
    }

    mutating func object(_ o: [String: JSONValue]) {
        uint(UInt64(o.count))
        for key in o.keys.sorted() {
            name(key)
            value(o[key] ?? .null)
        }
    }

    mutating func value(_ v: JSONValue) {
        switch v {
        case .null: byte(0)
        case .bool(let b): byte(b ? 2 : 1)
        case .number(let n):
            byte(3)
            string(n)
        case .string(let s):
            // Version 2: tag 7 and the index of a name the definition has.
            if let k = names.index[s] {
                byte(7)
                uint(UInt64(k))
            } else {
                byte(4)
                string(s)
            }
        case .array(let items):
            byte(5)
            uint(UInt64(items.count))
            for item in items { value(item) }
        case .object(let o):
            byte(6)
            object(o)
        }
    }
}

/// Equal strings and objects seen while decoding journeys, shared instead of rebuilt.
/// Bounded: starts over past a number of entries. Use from one thread.
public final class JourneyDecodingCache {
    var stringKeys = ByteInterner()
    var strings: [String] = []
    var objectKeys = ByteInterner()
    var objects: [[String: JSONValue]] = []

    public init() {}

    func string(_ bytes: UnsafeRawBufferPointer) -> String {
        let u = bytes.bindMemory(to: UInt8.self)
        let (i, isNew) = stringKeys.intern(u)
        if isNew {
            if strings.count >= Tuning.cachedDecodedValues {
                stringKeys = ByteInterner()
                strings.removeAll(keepingCapacity: true)
                _ = stringKeys.intern(u)
            }
            strings.append(String(decoding: u, as: UTF8.self))
            return strings[strings.count - 1]
        }
        return strings[i]
    }
}

struct BinaryReader {
    let b: UnsafeRawBufferPointer
    var offset = 0
    var cache: JourneyDecodingCache?
    /// The definition's names (version 2 writes names as indexes into them).
    var names = JourneyNames.none
    /// Version 2 bytes: object keys and names are written as `BinaryWriter.name` does.
    var namesAsIndexes = false
    /// Whether `object` shares equal objects through the cache (flags repeat; values rarely do).
    var sharesObjects = false

    init(_ b: UnsafeRawBufferPointer) { self.b = b }

    var atEnd: Bool { offset == b.count }

    @inline(__always) mutating func byte() throws -> UInt8 {
        guard offset < b.count else { throw JourneyDecodingError(offset: offset, reason: "unexpected end") }
        let v = b[offset]
        offset += 1
        return v
    }

    @inline(__always) mutating func uint() throws -> UInt64 {
        let start = offset
        guard let v = Varint.read(b, at: &offset) else {
            throw JourneyDecodingError(offset: offset, reason: offset - start >= Varint.maxBytes ? "varint too long" : "unexpected end")
        }
        return v
    }

    mutating func count() throws -> Int {
        let n = try uint()
        guard n <= UInt64(b.count - offset) else { throw JourneyDecodingError(offset: offset, reason: "count \(n) beyond the data") }
        return Int(n)
    }

    mutating func int() throws -> Int64 {
        Varint.unzigzag(try uint())
    }

    mutating func double() throws -> Double {
        guard b.count - offset >= 8 else { throw JourneyDecodingError(offset: offset, reason: "unexpected end") }
        let bits = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        offset += 8
        return Double(bitPattern: bits)
    }

    private mutating func utf8(_ n: Int) throws -> String {
        guard n <= b.count - offset else { throw JourneyDecodingError(offset: offset, reason: "string beyond the data") }
        let raw = UnsafeRawBufferPointer(rebasing: b[offset..<(offset + n)])
        // Strings of up to 15 bytes live inline (no allocation); longer ones are shared.
        let s = n > 15 ? cache?.string(raw) ?? String(decoding: raw, as: UTF8.self) : String(decoding: raw, as: UTF8.self)
        offset += n
        return s
    }

    mutating func string() throws -> String { try utf8(Int(try count())) }

    mutating func optionalString() throws -> String? {
        let n = try uint()
        if n == 0 { return nil }
        return try utf8(Int(clamping: n - 1))
    }

    mutating func timestamp() throws -> Timestamp {
        let micros = try int()
        let offset = try int()
        guard let o = Int32(exactly: offset) else { throw JourneyDecodingError(offset: self.offset, reason: "offset out of range") }
        return Timestamp(micros: micros, offsetSeconds: o)
    }

    mutating func optionalTimestamp() throws -> Timestamp? {
        try byte() == 0 ? nil : try timestamp()
    }

    mutating func timestamp(from base: Timestamp) throws -> Timestamp {
        let micros = try int()
        let offset = try int()
        guard let o = Int32(exactly: Int64(base.offsetSeconds) &+ offset) else {
            throw JourneyDecodingError(offset: self.offset, reason: "offset out of range")
        }
        return Timestamp(micros: base.micros &+ micros, offsetSeconds: o)
    }

    mutating func optionalTimestamp(from base: Timestamp) throws -> Timestamp? {
        try byte() == 0 ? nil : try timestamp(from: base)
    }

    mutating func optionalName() throws -> String? {
        switch try uint() {
        case 0: return nil
        case 1: return try string()
        case let k: return try indexedName(k - 2)
        }
    }

    mutating func name() throws -> String {
        guard let s = try optionalName() else { throw JourneyDecodingError(offset: offset, reason: "missing name") }
        return s
    }

    private func indexedName(_ k: UInt64) throws -> String {
        guard k < UInt64(names.names.count) else {
            throw JourneyDecodingError(offset: offset, reason: "name \(k) not among the definition's \(names.names.count)")
        }
        return names.names[Int(k)]
    }

    private mutating func skipKey() throws {
        if !namesAsIndexes {
            offset += Int(try count())
        } else if try uint() == 1 {
            offset += Int(try count())
        }
    }

    /// Seconds written as whole microseconds (`BinaryWriter.wholeMicros`).
    mutating func wholeMicros() throws -> Double {
        Double(Int64(clamping: try uint())) / 1_000_000
    }

    mutating func seconds() throws -> Double? {
        switch try byte() {
        case 0: return nil
        case 1: return try wholeMicros()
        case 2: return try double()
        case let tag: throw JourneyDecodingError(offset: offset - 1, reason: "unknown seconds tag \(tag)")
        }
    }

    mutating func object(depth: Int = 0) throws -> [String: JSONValue] {
        guard depth == 0, sharesObjects, let cache else { return try decodeObject(depth: depth) }
        let start = offset
        try skipObject()
        let raw = UnsafeRawBufferPointer(rebasing: b[start..<offset])
        let (i, isNew) = cache.objectKeys.intern(raw.bindMemory(to: UInt8.self))
        if !isNew { return cache.objects[i] }
        var sub = BinaryReader(raw)
        sub.cache = cache
        sub.names = names
        sub.namesAsIndexes = namesAsIndexes
        let o = try sub.decodeObject(depth: depth)
        if cache.objects.count >= Tuning.cachedDecodedValues {
            cache.objectKeys = ByteInterner()
            cache.objects.removeAll(keepingCapacity: true)
            _ = cache.objectKeys.intern(raw.bindMemory(to: UInt8.self))
        }
        cache.objects.append(o)
        return o
    }

    /// Moves past an object without building it.
    mutating func skipObject(depth: Int = 0) throws {
        let n = try count()
        for _ in 0..<n {
            try skipKey()
            try skipValue(depth: depth)
        }
    }

    mutating func skipValue(depth: Int) throws {
        guard depth < 512 else { throw JourneyDecodingError(offset: offset, reason: "nesting too deep") }
        switch try byte() {
        case 0, 1, 2: return
        case 3, 4: offset += Int(try count())
        case 5:
            let n = try count()
            for _ in 0..<n { try skipValue(depth: depth + 1) }
        case 6: try skipObject(depth: depth + 1)
        case 7 where namesAsIndexes: _ = try uint()
        case let tag: throw JourneyDecodingError(offset: offset - 1, reason: "unknown value tag \(tag)")
        }
    }

    mutating func decodeObject(depth: Int) throws -> [String: JSONValue] {
        let n = try count()
        var o: [String: JSONValue] = [:]
        o.reserveCapacity(n)
        for _ in 0..<n {
            let key = namesAsIndexes ? try name() : try string()
            o[key] = try value(depth: depth)
        }
        return o
    }

    mutating func value(depth: Int = 0) throws -> JSONValue {
        guard depth < 512 else { throw JourneyDecodingError(offset: offset, reason: "nesting too deep") }
        switch try byte() {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3: return .number(try string())
        case 4: return .string(try string())
        case 5:
            let n = try count()
            var items: [JSONValue] = []
            items.reserveCapacity(n)
            for _ in 0..<n { items.append(try value(depth: depth + 1)) }
            return .array(items)
        case 6: return .object(try object(depth: depth + 1))
        case 7 where namesAsIndexes: return .string(try indexedName(try uint()))
        case let tag: throw JourneyDecodingError(offset: offset - 1, reason: "unknown value tag \(tag)")
        }
    }
}
