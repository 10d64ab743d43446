#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FunnelModel

/// Where one decoded string lives: `start..<end` in the line, or in the decoder's scratch
/// buffer when the JSON string held escapes.
/// Eight bytes: `inScratch` is the top bit of the stored end (offsets are below 2^31), so an
/// `Envelope` of them is small enough to be copied inline rather than by a `memcpy` call.
public struct StringRef: Sendable, Hashable {
    public var start: Int32
    /// `end`, with `inScratch` in the top bit.
    @usableFromInline var endAndPlace: UInt32

    @inlinable @inline(__always)
    public var end: Int32 {
        get { Int32(bitPattern: endAndPlace & StringRef.endMask) }
        set { endAndPlace = (endAndPlace & ~StringRef.endMask) | (UInt32(bitPattern: newValue) & StringRef.endMask) }
    }

    @inlinable @inline(__always)
    public var inScratch: Bool {
        get { endAndPlace & ~StringRef.endMask != 0 }
        set { endAndPlace = (endAndPlace & StringRef.endMask) | (newValue ? ~StringRef.endMask : 0) }
    }

    @usableFromInline static var endMask: UInt32 { 0x7FFF_FFFF }

    public var count: Int { Int(end - start) }

    @inlinable @inline(__always)
    public init(start: Int32, end: Int32, inScratch: Bool) {
        self.start = start
        endAndPlace = (UInt32(bitPattern: end) & StringRef.endMask) | (inScratch ? ~StringRef.endMask : 0)
    }

    /// The ref's bytes in `b`, the buffer it points into (a line, or a batch it was rebased
    /// into; not a decoder's scratch: `EventDecoder.withBytes` reads those).
    @inlinable @inline(__always)
    public func bytes(in b: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: b[Int(start)..<Int(end)])
    }

    /// The ref's text in `b`, as `bytes(in:)` reads it.
    public func string(in b: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes(in: b), as: UTF8.self)
    }
}

/// The envelope of one valid event line: where its string fields are, and its time.
/// `properties` and `context` are byte ranges of the (validated) objects in the line.
public struct Envelope: Sendable, Hashable {
    public var eventID: StringRef
    public var name: StringRef
    public var userID: StringRef
    public var flow: StringRef
    public var step: StringRef?
    public var time: Timestamp
    /// The `ts` string as written (between its quotes, or decoded into scratch).
    public var timeText: StringRef
    public var properties: Range<Int>?
    public var context: Range<Int>?

    public init(eventID: StringRef, name: StringRef, userID: StringRef, flow: StringRef, step: StringRef?,
                time: Timestamp, timeText: StringRef, properties: Range<Int>?, context: Range<Int>?) {
        self.eventID = eventID
        self.name = name
        self.userID = userID
        self.flow = flow
        self.step = step
        self.time = time
        self.timeText = timeText
        self.properties = properties
        self.context = context
    }
}

/// Shared strings, properties and contexts for `EventDecoder.event(from:in:cache:)`: a value
/// built once per distinct text, and shared by every event that has the same text. Bounded:
/// each table starts over once it holds many entries.
public struct EventCache {
    var strings = BoundedByteCache<String>(limit: Tuning.cachedStrings)
    var contexts = BoundedByteCache<EventContext>(limit: Tuning.cachedContexts)
    var properties = BoundedByteCache<[String: JSONValue]>(limit: Tuning.cachedPropertySets)

    public init() {}
}

/// Validates event lines against the v1 contract (schemas/event.schema.json) at the byte
/// level, without Foundation: UTF-8, strict JSON, an object, the required string fields,
/// RFC 3339 `ts`, non-empty `event_id`/`user_id`, optional `step` (string), `properties`
/// (object) and `context` (object whose `app_version`/`platform` are strings and `flags` an
/// object). Other fields are allowed and kept in the stored line.
///
/// A decoder is reused line after line; `scratch` holds the decoded form of fields that
/// contained escapes and is valid until the next call.
public struct EventDecoder {
    public private(set) var scratch: [UInt8] = []

    public init() {}

    private enum Field { case eventID, name, userID, ts, flow, step, properties, context }

    /// The required fields, in the order their type and presence are checked.
    private static let required = ["event_id", "event", "user_id", "ts", "flow"]

    @inline(__always)
    private static func keyMatch(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ key: StaticString) -> Bool {
        let n = key.utf8CodeUnitCount
        guard end - start == n, let base = b.baseAddress else { return false }
        return memcmp(base + start, key.utf8Start, n) == 0
    }

    private static func field(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Field? {
        switch e - s {
        case 2: return keyMatch(b, s, e, "ts") ? .ts : nil
        case 4:
            if keyMatch(b, s, e, "flow") { return .flow }
            if keyMatch(b, s, e, "step") { return .step }
            return nil
        case 5: return keyMatch(b, s, e, "event") ? .name : nil
        case 7:
            if keyMatch(b, s, e, "user_id") { return .userID }
            if keyMatch(b, s, e, "context") { return .context }
            return nil
        case 8: return keyMatch(b, s, e, "event_id") ? .eventID : nil
        case 10: return keyMatch(b, s, e, "properties") ? .properties : nil
        default: return nil
        }
    }

    private static func kind(of c: UInt8) -> String {
        switch c {
        case 0x5B: return "array"
        case 0x22: return "string"
        case 0x74, 0x66: return "boolean"
        case 0x6E: return "null"
        default: return "number"
        }
    }

    /// Validates one line (without its newline) and locates the envelope fields.
    public mutating func envelope(_ b: UnsafeBufferPointer<UInt8>) -> Result<Envelope, Rejection> {
        if let bad = UTF8Check.firstInvalid(b) { return .failure(.invalidUTF8(offset: bad)) }
        scratch.removeAll(keepingCapacity: true)
        var sc = JSONScanner(b)
        // Field state: nil = absent; a type error is remembered and reported after the
        // whole line parsed, so that a syntax error anywhere wins.
        // eventID, name, userID, ts, flow (no array: nothing allocated per line).
        var refs: (StringRef?, StringRef?, StringRef?, StringRef?, StringRef?) = (nil, nil, nil, nil, nil)
        // Bit k: field k (refs' order, then step, properties, context) had the wrong type.
        var wrongType: UInt8 = 0
        func setWrong(_ k: Int, _ wrong: Bool) {
            if wrong { wrongType |= 1 << k } else { wrongType &= ~(1 << k) }
        }
        var step: StringRef?
        func set(_ k: Int, _ ref: StringRef?) {
            switch k {
            case 0: refs.0 = ref
            case 1: refs.1 = ref
            case 2: refs.2 = ref
            case 3: refs.3 = ref
            case 4: refs.4 = ref
            default: step = ref
            }
        }
        var properties: Range<Int>?
        var context: Range<Int>?
        var contextError: Rejection?
        do {
            sc.skipWhitespace()
            guard let first = sc.peek else { throw JSONSyntaxError(offset: sc.i, message: "empty line") }
            if first != 0x7B {
                try sc.skipValue()
                sc.skipWhitespace()
                if sc.i < b.count { throw JSONSyntaxError(offset: sc.i, message: "unexpected text after the value") }
                return .failure(.notObject(found: EventDecoder.kind(of: first)))
            }
            sc.i += 1
            sc.skipWhitespace()
            if sc.peek == 0x7D {
                sc.i += 1
            } else {
                var keyBuf: [UInt8] = []
                while true {
                    sc.skipWhitespace()
                    let key = try withUnsafeMutablePointer(to: &keyBuf) { p -> (Int, Int, Bool) in
                        p.pointee.removeAll(keepingCapacity: true)
                        let r = try sc.scanString(decodeInto: p)
                        return (r.start, r.end, r.escaped)
                    }
                    let f: Field?
                    if key.2 {
                        f = keyBuf.withUnsafeBufferPointer { EventDecoder.field($0, 0, $0.count) }
                    } else {
                        f = EventDecoder.field(b, key.0, key.1)
                    }
                    sc.skipWhitespace()
                    try sc.expect(0x3A, .colon)
                    sc.skipWhitespace()
                    if let f {
                        let c = sc.peek
                        switch f {
                        case .eventID, .name, .userID, .ts, .flow, .step:
                            let idx: Int
                            switch f {
                            case .eventID: idx = 0
                            case .name: idx = 1
                            case .userID: idx = 2
                            case .ts: idx = 3
                            case .flow: idx = 4
                            default: idx = 5
                            }
                            if c == 0x22 {
                                let before = scratch.count
                                let r = try withUnsafeMutablePointer(to: &scratch) { try sc.scanString(decodeInto: $0) }
                                let ref = r.escaped
                                    ? StringRef(start: Int32(before), end: Int32(scratch.count), inScratch: true)
                                    : StringRef(start: Int32(r.start), end: Int32(r.end), inScratch: false)
                                set(idx, ref)
                                setWrong(idx, false)
                            } else {
                                try sc.skipValue()
                                set(idx, nil)
                                setWrong(idx, true)
                            }
                        case .properties:
                            let start = sc.i
                            try sc.skipValue()
                            if c == 0x7B { properties = start..<sc.i; setWrong(6, false) } else { properties = nil; setWrong(6, true) }
                        case .context:
                            let start = sc.i
                            if c == 0x7B {
                                contextError = try EventDecoder.scanContext(&sc)
                                context = start..<sc.i
                                setWrong(7, false)
                            } else {
                                try sc.skipValue()
                                context = nil
                                contextError = nil
                                setWrong(7, true)
                            }
                        }
                    } else {
                        try sc.skipValue()
                    }
                    sc.skipWhitespace()
                    if sc.peek == 0x2C { sc.i += 1; continue }
                    try sc.expect(0x7D, .commaOrObjectEnd)
                    break
                }
            }
            sc.skipWhitespace()
            if sc.i < b.count { throw JSONSyntaxError(offset: sc.i, message: "unexpected text after the object") }
        } catch let e as JSONSyntaxError {
            return .failure(.notJSON(column: e.offset + 1, detail: e.message))
        } catch {
            return .failure(.notJSON(column: sc.i + 1, detail: "\(error)"))
        }
        let missing: UInt8 = (refs.0 == nil ? 1 : 0) | (refs.1 == nil ? 2 : 0) | (refs.2 == nil ? 4 : 0)
            | (refs.3 == nil ? 8 : 0) | (refs.4 == nil ? 16 : 0)
        if wrongType != 0 || missing != 0 {
            for k in 0..<5 {
                if wrongType & (1 << k) != 0 { return .failure(.notAString(field: EventDecoder.required[k])) }
                if missing & (1 << k) != 0 { return .failure(.missingField(EventDecoder.required[k])) }
            }
            if wrongType & (1 << 5) != 0 { return .failure(.notAString(field: "step")) }
            if wrongType & (1 << 6) != 0 { return .failure(.notAnObject(field: "properties")) }
            if wrongType & (1 << 7) != 0 { return .failure(.notAnObject(field: "context")) }
        }
        if let contextError { return .failure(contextError) }
        guard let eventID = refs.0, let name = refs.1, let userID = refs.2, let tsRef = refs.3,
              let flow = refs.4 else { return .failure(.missingField("event_id")) }
        if eventID.count == 0 { return .failure(.emptyField("event_id")) }
        if userID.count == 0 { return .failure(.emptyField("user_id")) }
        let time: Timestamp? = withBytes(tsRef, in: b) { tb in
            tb.count > 10 ? Timestamp.parse(bytes: tb) : nil
        }
        guard let time else {
            return .failure(.badTimestamp(withBytes(tsRef, in: b) { JSONValue.quoted(String(decoding: $0, as: UTF8.self)) }))
        }
        return .success(Envelope(eventID: eventID, name: name, userID: userID, flow: flow, step: step,
                                 time: time, timeText: tsRef, properties: properties, context: context))
    }

    /// Scans a context object; returns the first type error among its known keys.
    private static func scanContext(_ sc: inout JSONScanner) throws -> Rejection? {
        // The last app_version, platform and flags each decide (a repeated key: the last).
        var wrong: (Rejection?, Rejection?, Rejection?) = (nil, nil, nil)
        try sc.expect(0x7B, .objectStart)
        sc.skipWhitespace()
        if sc.peek == 0x7D { sc.i += 1; return nil }
        var keyBuf: [UInt8] = []
        while true {
            sc.skipWhitespace()
            keyBuf.removeAll(keepingCapacity: true)
            let r = try withUnsafeMutablePointer(to: &keyBuf) { try sc.scanString(decodeInto: $0) }
            func isKey(_ key: StaticString) -> Bool {
                r.escaped ? keyBuf.withUnsafeBufferPointer { keyMatch($0, 0, $0.count, key) } : keyMatch(sc.b, r.start, r.end, key)
            }
            sc.skipWhitespace()
            try sc.expect(0x3A, .colon)
            sc.skipWhitespace()
            let c = sc.peek
            try sc.skipValue()
            if isKey("app_version") {
                wrong.0 = c == 0x22 ? nil : .notAString(field: "context.app_version")
            } else if isKey("platform") {
                wrong.1 = c == 0x22 ? nil : .notAString(field: "context.platform")
            } else if isKey("flags") {
                wrong.2 = c == 0x7B ? nil : .notAnObject(field: "context.flags")
            }
            sc.skipWhitespace()
            if sc.peek == 0x2C { sc.i += 1; continue }
            try sc.expect(0x7D, .commaOrObjectEnd)
            break
        }
        return wrong.0 ?? wrong.1 ?? wrong.2
    }

    /// Calls `body` with the bytes of `ref` (from the line `b` or from `scratch`).
    public func withBytes<T>(_ ref: StringRef, in b: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        if ref.inScratch {
            return try scratch.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[Int(ref.start)..<Int(ref.end)])) }
        }
        return try body(ref.bytes(in: b))
    }

    public func string(_ ref: StringRef, in b: UnsafeBufferPointer<UInt8>) -> String {
        withBytes(ref, in: b) { String(decoding: $0, as: UTF8.self) }
    }

    /// Decodes a whole line into an `Event` (properties and context included).
    public mutating func decode(_ b: UnsafeBufferPointer<UInt8>) -> Result<Event, Rejection> {
        switch envelope(b) {
        case .failure(let r): return .failure(r)
        case .success(let env): return .success(event(from: env, in: b))
        }
    }

    /// Builds the `Event` for an envelope `envelope(_:)` just returned for `b`.
    public func event(from env: Envelope, in b: UnsafeBufferPointer<UInt8>) -> Event {
        Event(id: string(env.eventID, in: b), name: string(env.name, in: b),
              userID: string(env.userID, in: b), time: env.time, flow: string(env.flow, in: b),
              step: env.step.map { string($0, in: b) },
              properties: env.properties.map { EventDecoder.properties(at: $0, in: b) } ?? [:],
              context: env.context.map { EventDecoder.context(at: $0, in: b) } ?? EventContext())
    }

    /// Builds the `Event` like `event(from:in:)`, sharing repeated strings (names, steps,
    /// flows, users), properties and contexts through `cache`: fewer allocations and less
    /// memory per event. Without `id`, the event's id is left empty (for a caller that does
    /// not read it).
    public func event(from env: Envelope, in b: UnsafeBufferPointer<UInt8>, cache: inout EventCache, id: Bool = true) -> Event {
        let (properties, context) = EventDecoder.sharedValues(env, in: b, cache: &cache)
        func shared(_ ref: StringRef) -> String {
            withBytes(ref, in: b) { bytes in cache.strings.value(for: bytes) { String(decoding: bytes, as: UTF8.self) } }
        }
        return Event(id: id ? string(env.eventID, in: b) : "", name: shared(env.name), userID: shared(env.userID), time: env.time,
                     flow: shared(env.flow), step: env.step.map(shared), properties: properties, context: context)
    }

    /// Builds the event like `event(from:in:cache:id:)` (its id left empty), with its name,
    /// user, flow and step strings given: a caller that has numbered them already (the
    /// ingest's parser, per input) makes each once instead of looking its bytes up per line.
    public func event(from env: Envelope, in b: UnsafeBufferPointer<UInt8>, cache: inout EventCache,
                      name: String, userID: String, flow: String, step: String?) -> Event {
        let (properties, context) = EventDecoder.sharedValues(env, in: b, cache: &cache)
        return Event(id: "", name: name, userID: userID, time: env.time, flow: flow, step: step,
                     properties: properties, context: context)
    }

    /// The line's properties and context, shared through `cache` with earlier lines that had
    /// the same bytes.
    private static func sharedValues(_ env: Envelope, in b: UnsafeBufferPointer<UInt8>,
                                     cache: inout EventCache) -> ([String: JSONValue], EventContext) {
        var properties: [String: JSONValue] = [:]
        if let r = env.properties, r.count > 2 {
            properties = cache.properties.value(for: UnsafeBufferPointer(rebasing: b[r])) { EventDecoder.properties(at: r, in: b) }
        }
        var context = EventContext()
        if let r = env.context {
            context = cache.contexts.value(for: UnsafeBufferPointer(rebasing: b[r])) { EventDecoder.context(at: r, in: b) }
        }
        return (properties, context)
    }

    /// The properties object at `r` of a validated line.
    public static func properties(at r: Range<Int>, in b: UnsafeBufferPointer<UInt8>) -> [String: JSONValue] {
        var sc = JSONScanner(b, at: r.lowerBound)
        if case .object(let o)? = try? sc.parseValue() { return o }
        return [:]
    }

    /// The context object at `r` of a validated line: app version, platform, flags, the rest.
    public static func context(at r: Range<Int>, in b: UnsafeBufferPointer<UInt8>) -> EventContext {
        var context = EventContext()
        var sc = JSONScanner(b, at: r.lowerBound)
        if case .object(var o)? = try? sc.parseValue() {
            context.appVersion = o.removeValue(forKey: "app_version")?.stringValue
            context.platform = o.removeValue(forKey: "platform")?.stringValue
            context.flags = o.removeValue(forKey: "flags")?.objectValue ?? [:]
            context.other = o
        }
        return context
    }

    /// Decodes a line given as text (for reading stored lines back).
    public static func decode(line: String) -> Result<Event, Rejection> {
        var decoder = EventDecoder()
        var text = line
        return text.withUTF8 { decoder.decode($0) }
    }

    public static func decode(bytes: [UInt8]) -> Result<Event, Rejection> {
        var decoder = EventDecoder()
        return bytes.withUnsafeBufferPointer { decoder.decode($0) }
    }

    /// The whole line as a `JSONValue`, or nil when it is not JSON. Used to compare two
    /// copies of an event that differ only in spacing or key order.
    public static func jsonValue(_ b: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        guard UTF8Check.firstInvalid(b) == nil else { return nil }
        var sc = JSONScanner(b)
        guard let v = try? sc.parseValue() else { return nil }
        sc.skipWhitespace()
        return sc.i == b.count ? v : nil
    }
}
