import FunnelModel

/// Writes a vendor line's native line straight from the line's bytes in one scan: values are
/// copied as written (strings with their escapes, objects with their spacing), so it decodes
/// to the event `SourceMapping.map` gives. A line off that common path (an escaped or
/// repeated key where values are read, a value of the wrong kind, anything rejected) goes
/// through `SourceMapping.map`, which names any fault. One per thread: it keeps its buffers.
public struct SourceCutter: Sendable {
    public let mapping: SourceMapping
    /// The native line of the last line mapped.
    public private(set) var line: [UInt8] = []
    /// Where the native line's values are, when the scan wrote it and no string of the
    /// envelope holds an escape: what a decoder of `line` would find, without decoding it.
    public private(set) var fields: NativeFields?
    /// Where the same values are in the vendor's line, set with `fields`.
    public private(set) var vendorFields: VendorFields?
    /// With `vendorFields`, the rest of the vendor's line that no field reads as a value a
    /// line's shape could hold: runs of members no field reads (a properties object's own
    /// ones among them), and the values of later choices of the id, user and time fields.
    /// Byte ranges in the line, in no order.
    public private(set) var otherValues: [Range<Int>] = []

    /// Byte ranges in `line`: strings between their quotes, objects whole.
    public struct NativeFields: Sendable, Hashable {
        public var eventID: Range<Int>
        public var name: Range<Int>
        public var userID: Range<Int>
        public var flow: Range<Int>
        public var step: Range<Int>?
        public var timeText: Range<Int>
        public var time: Timestamp
        public var properties: Range<Int>?
        public var context: Range<Int>?
    }

    /// Byte ranges in the vendor's line (strings between their quotes, other values whole):
    /// the values its native line copies as written (event id, user, flow, step, a name
    /// passed through; nil: not in the line, or another name), and the time as the vendor
    /// wrote it.
    public struct VendorFields: Sendable, Hashable {
        public var eventID: Range<Int>
        public var name: Range<Int>?
        public var userID: Range<Int>
        public var flow: Range<Int>?
        public var step: Range<Int>?
        public var time: Range<Int>
    }

    private let cut: SourceCut
    private let plan: Plan
    /// The value at each slot on the line read last.
    private var values: [Value]
    /// The members of each member slot's object on the line read last.
    private var members: [[Member]]

    /// Where a slot's value is in the line: a string's content (between its quotes), any
    /// other value whole. `start < 0`: absent.
    struct Value: Sendable {
        var start = -1
        var end = -1
        var kind: UInt8 = 0
        var escaped = false
        var present: Bool { start >= 0 && kind != 0x6E }
        var isString: Bool { kind == 0x22 }
    }

    /// One member of an object whose members are kept.
    struct Member: Sendable {
        var key: Range<Int>
        var value: Range<Int>
    }

    public init(_ mapping: SourceMapping) {
        self.mapping = mapping
        cut = SourceCut(mapping.definition)
        plan = Plan(mapping.definition, cut: cut, defaultFlow: mapping.defaultFlow)
        values = Array(repeating: Value(), count: cut.paths.count)
        members = Array(repeating: [], count: cut.memberSlots.count)
        line.reserveCapacity(512)
    }

    /// Maps one vendor line (without its newline); on success its native line is `line`.
    public mutating func map(_ b: UnsafeBufferPointer<UInt8>) -> SourceRejection? {
        fields = nil
        vendorFields = nil
        if cutLine(b) { return nil }
        fields = nil
        vendorFields = nil
        switch mapping.map(b) {
        case .failure(let r):
            return r
        case .success(let mapped):
            line = mapped.nativeLine
            return nil
        }
    }

    /// The one scan: true when the line's native line is written to `line`; false when the
    /// line is off the common path.
    mutating func cutLine(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard UTF8Check.firstInvalid(b) == nil, scan(b) else { return false }
        return write(b)
    }

    // MARK: the scan

    private mutating func scan(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for s in values.indices { values[s].start = -1 }
        for m in members.indices { members[m].removeAll(keepingCapacity: true) }
        otherValues.removeAll(keepingCapacity: true)
        var sc = JSONScanner(b)
        do throws(JSONSyntaxError) {
            sc.skipWhitespace()
            guard sc.peek == 0x7B, try object(0, &sc) else { return false }
            sc.skipWhitespace()
            return sc.i == b.count
        } catch {
            return false
        }
    }

    /// Reads the object at the cursor as `node`: wanted values to their slots, members to
    /// the node's list, runs of members no field reads to `otherValues`. False when a key is
    /// escaped or a wanted key repeats.
    private mutating func object(_ node: Int, _ sc: inout JSONScanner) throws(JSONSyntaxError) -> Bool {
        // Read in place: a copy of the node would retain its arrays for every object.
        let wide = cut.nodes[node].wide, list = cut.nodes[node].members
        let flagPrefix = list >= 0 ? plan.flagPrefix(ofList: list) : nil
        sc.depth += 1
        sc.i += 1
        sc.skipWhitespace()
        if sc.peek == 0x7D { sc.i += 1; sc.depth -= 1; return true }
        var seen: UInt64 = 0
        // The run of unread members going on (its first key's quote, its last value's end).
        var run: Range<Int>?
        while true {
            sc.skipWhitespace()
            let key = try sc.scanString(decodeInto: nil)
            if key.escaped { return false }
            sc.skipWhitespace()
            try sc.expect(0x3A, .colon)
            sc.skipWhitespace()
            let start = sc.i
            let k = cut.find(key.start..<key.end, node: node, in: sc.b)
            if k >= 0 {
                guard k < 64, seen & (1 << k) == 0 else { return false }
                seen |= 1 << k
                let child = cut.nodes[node].children[k], slot = cut.nodes[node].slots[k]
                let c = sc.peek ?? 0
                if c == 0x22 {
                    let s = try sc.scanString(decodeInto: nil)
                    if slot >= 0 { values[slot] = Value(start: s.start, end: s.end, kind: c, escaped: s.escaped) }
                } else {
                    if child >= 0, c == 0x7B {
                        guard try object(child, &sc) else { return false }
                    } else {
                        try sc.skipValue()
                    }
                    if slot >= 0 { values[slot] = Value(start: start, end: sc.i, kind: c) }
                }
                if let r = run { otherValues.append(r); run = nil }
            } else {
                if wide, Self.isWide(key.start..<key.end, sc.b) { return false }
                try sc.skipValue()
                // A flag (or a key bytes cannot tell, whose line the mapping reads) stays.
                if let flagPrefix, Self.hasPrefix(flagPrefix, key.start..<key.end, sc.b) != false {
                    if let r = run { otherValues.append(r); run = nil }
                } else {
                    run = (run?.lowerBound ?? (key.start - 1))..<sc.i
                }
            }
            if list >= 0 { members[list].append(Member(key: key.start..<key.end, value: start..<sc.i)) }
            sc.skipWhitespace()
            if sc.peek == 0x2C { sc.i += 1; continue }
            try sc.expect(0x7D, .commaOrObjectEnd)
            if let r = run { otherValues.append(r) }
            sc.depth -= 1
            return true
        }
    }

    /// Whether the bytes at `r` are `key`'s.
    static func equal(_ key: [UInt8], _ r: Range<Int>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard key.count == r.count else { return false }
        var i = r.lowerBound
        for c in key {
            if b[i] != c { return false }
            i += 1
        }
        return true
    }

    // MARK: the native line

    /// The value at `slot`, when present.
    private func present(_ slot: Int) -> Value? {
        values[slot].present ? values[slot] : nil
    }

    /// The first present value of `slots`.
    private func first(_ slots: [Int]) -> Value? {
        for s in slots where values[s].present { return values[s] }
        return nil
    }

    /// The first present value of `slots` when it is a string (nil when none is present);
    /// false when it is of another kind.
    private func string(_ slots: [Int], _ out: inout Value?) -> Bool {
        out = first(slots)
        return out.map(\.isString) ?? true
    }

    /// Writes the native line: keys sorted (context, event, event_id, flow, properties, step,
    /// ts, user_id), as `MappedEvent.nativeLine` does.
    private mutating func write(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var id: Value?, user: Value?, flow: Value?, step: Value?, appVersion: Value?, platform: Value?
        guard string(plan.eventID, &id), let id, id.end > id.start,
              string(plan.userID, &user), let user, user.end > user.start,
              string(plan.flow, &flow), flow != nil || plan.defaultFlow != nil,
              string(plan.step, &step),
              string(plan.appVersion, &appVersion), string(plan.platform, &platform),
              let name = naming(b, step: &step) else { return false }
        // The buffer is moved out and back, so it is never shared while written.
        var out: [UInt8] = []
        swap(&out, &line)
        out.removeAll(keepingCapacity: true)
        defer { line = out }
        out.append(0x7B)
        let contextAt = out.count
        guard writeContext(b, appVersion: appVersion, platform: platform, into: &out) else { return false }
        // `"context":` is 10 bytes; the object follows it.
        let context = out.count > contextAt ? (contextAt + 10)..<out.count : nil
        if out.count > contextAt { out.append(0x2C) }
        Self.key("event", &out)
        var escaped = false
        let nameRange: Range<Int>
        switch name {
        case .raw(let v): nameRange = Self.raw(v, b, &out); escaped = escaped || v.escaped
        case .quoted(let q): nameRange = Self.quoted(q, &out, escaped: &escaped)
        }
        out.append(0x2C); Self.key("event_id", &out)
        let idRange = Self.raw(id, b, &out)
        out.append(0x2C); Self.key("flow", &out)
        let flowRange = flow.map { Self.raw($0, b, &out) } ?? Self.quoted(plan.defaultFlow ?? [], &out, escaped: &escaped)
        let propertiesAt = out.count
        guard writeProperties(b, into: &out) else { return false }
        // `,"properties":` is 14 bytes; the object follows it.
        let properties = out.count > propertiesAt ? (propertiesAt + 14)..<out.count : nil
        var stepRange: Range<Int>?
        if let step { out.append(0x2C); Self.key("step", &out); stepRange = Self.raw(step, b, &out) }
        out.append(0x2C); Self.key("ts", &out)
        guard let (time, timeText) = writeTime(b, into: &out) else { return false }
        out.append(0x2C); Self.key("user_id", &out)
        let userRange = Self.raw(user, b, &out)
        out.append(0x7D)
        escaped = escaped || id.escaped || user.escaped || (flow?.escaped ?? false) || (step?.escaped ?? false)
        if !escaped {
            fields = NativeFields(eventID: idRange, name: nameRange, userID: userRange, flow: flowRange, step: stepRange,
                                  timeText: timeText, time: time,
                                  properties: properties, context: context)
            vendorFields = vendorFields(id: id, name: name, user: user, flow: flow, step: step)
        }
        return true
    }

    /// Where the values of the line just written are in the vendor's line `b`; the values of
    /// the id, user and time fields' later choices to `otherValues`.
    private mutating func vendorFields(id: Value, name: Name, user: Value, flow: Value?, step: Value?) -> VendorFields? {
        guard let t = first(plan.ts) else { return nil }
        var passed: Range<Int>?
        if case .raw(let v) = name { passed = v.start..<v.end }
        addLaterChoices(plan.eventID)
        addLaterChoices(plan.userID)
        addLaterChoices(plan.ts)
        return VendorFields(eventID: id.start..<id.end, name: passed, userID: user.start..<user.end, flow: flow.map { $0.start..<$0.end },
                            step: step.map { $0.start..<$0.end }, time: t.start..<t.end)
    }

    /// The present values of `slots` after the first, to `otherValues`.
    private mutating func addLaterChoices(_ slots: [Int]) {
        var chosen = false
        for s in slots where values[s].present {
            if chosen { otherValues.append(values[s].start..<values[s].end) }
            chosen = true
        }
    }

    enum Name {
        case raw(Value)
        case quoted([UInt8])
    }

    /// The native name, as `SourceMapping`'s naming gives it; a step view's step to `step`.
    private func naming(_ b: UnsafeBufferPointer<UInt8>, step: inout Value?) -> Name? {
        if let view = plan.stepView, let v = present(view.match), v.isString {
            guard !v.escaped else { return nil }
            if !Self.equal(view.equals, v.start..<v.end, b) {
                if Self.isWide(v.start..<v.end, b) { return nil }
            } else {
                return viewed(view, &step)
            }
        }
        if let types = plan.eventTypes {
            guard let t = present(types.slot), t.isString, !t.escaped else { return nil }
            if !types.carryEvent.contains(where: { Self.equal($0, t.start..<t.end, b) }) {
                return Self.isWide(t.start..<t.end, b) ? nil : .raw(t)
            }
        }
        var vendor: Value?
        guard string(plan.event, &vendor), let vendor, !vendor.escaped else { return nil }
        for (name, native) in plan.events where Self.equal(name, vendor.start..<vendor.end, b) {
            return .quoted(native)
        }
        return Self.isWide(vendor.start..<vendor.end, b) ? nil : .raw(vendor)
    }

    /// A step view's name, its step (when its line has one) to `step`.
    private func viewed(_ view: Plan.StepView, _ step: inout Value?) -> Name? {
        var viewed: Value?
        guard string(view.step, &viewed) else { return nil }
        if let viewed { step = viewed }
        return .quoted(plan.stepViewed)
    }

    private func writeContext(_ b: UnsafeBufferPointer<UInt8>, appVersion: Value?, platform: Value?,
                              into out: inout [UInt8]) -> Bool {
        let start = out.count
        Self.key("context", &out)
        out.append(0x7B)
        let open = out.count
        if let appVersion { Self.key("app_version", &out); Self.raw(appVersion, b, &out) }
        let beforeFlags = out.count
        if out.count > open { out.append(0x2C) }
        Self.key("flags", &out)
        let flagsStart = out.count
        switch plan.flags {
        case nil: break
        case .object(let slots):
            if let f = first(slots) {
                guard f.kind == 0x7B else { return false }
                if !Self.isEmptyObject(f, b) { out.append(contentsOf: UnsafeBufferPointer(rebasing: b[f.start..<f.end])) }
            }
        case .prefix(let list, let prefix):
            out.append(0x7B)
            for m in members[list] where m.key.count > prefix.count {
                guard let flag = Self.hasPrefix(prefix, m.key, b) else { return false }
                if !flag { continue }
                if out.count > flagsStart + 1 { out.append(0x2C) }
                out.append(0x22)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[(m.key.lowerBound + prefix.count)..<m.key.upperBound]))
                out.append(contentsOf: [0x22, 0x3A])
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[m.value]))
            }
            if out.count == flagsStart + 1 { out.removeLast() } else { out.append(0x7D) }
        }
        if out.count == flagsStart { out.removeSubrange(beforeFlags...) }
        if let platform {
            if out.count > open { out.append(0x2C) }
            Self.key("platform", &out)
            Self.raw(platform, b, &out)
        }
        if out.count == open { out.removeSubrange(start...) } else { out.append(0x7D) }
        return true
    }

    /// The properties object's members but those other fields read (and flags by prefix).
    private func writeProperties(_ b: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) -> Bool {
        guard let chosen = plan.properties.first(where: { values[$0.slot].present }) else { return true }
        let slot = chosen.slot, list = chosen.list
        guard values[slot].kind == 0x7B else { return false }
        let start = out.count
        out.append(0x2C)
        Self.key("properties", &out)
        out.append(0x7B)
        let open = out.count
        for m in members[list] {
            if plan.consumed.contains(where: { Self.equal($0, m.key, b) }) { continue }
            if let prefix = plan.flagPrefix(ofList: list) {
                guard let flag = Self.hasPrefix(prefix, m.key, b) else { return false }
                if flag { continue }
            }
            if out.count > open { out.append(0x2C) }
            out.append(0x22)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[m.key]))
            out.append(contentsOf: [0x22, 0x3A])
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[m.value]))
        }
        if out.count == open { out.removeSubrange(start...) } else { out.append(0x7D) }
        return true
    }

    /// The time as the native line's `ts`, checked as `SourceDefinition.TimeFormat.time` does:
    /// the time, and where its text went (between the quotes).
    private func writeTime(_ b: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) -> (Timestamp, Range<Int>)? {
        guard let t = first(plan.ts) else { return nil }
        let text = UnsafeBufferPointer(rebasing: b[t.start..<t.end])
        out.append(0x22)
        let start = out.count
        let time: Timestamp
        switch plan.timeFormat {
        case .iso8601:
            guard t.isString, !t.escaped, text.count > 10, let parsed = Timestamp.parse(bytes: text) else { return nil }
            out.append(contentsOf: text)
            time = parsed
        case .sqlUTC:
            guard t.isString, !t.escaped, text.count >= 19, text[10] == 0x20,
                  text[19...].allSatisfy({ $0 == 0x2E || (0x30...0x39).contains($0) }) else { return nil }
            out.append(contentsOf: text)
            out.append(0x5A)
            guard let parsed = out.withUnsafeBufferPointer({ Timestamp.parse(bytes: UnsafeBufferPointer(rebasing: $0[start...])) }) else { return nil }
            time = parsed
        case .unix:
            guard t.kind == 0x2D || (0x30...0x39).contains(t.kind),
                  let parsed = SourceDefinition.TimeFormat.unixTime(bytes: text) else { return nil }
            parsed.appendRFC3339(into: &out)
            time = parsed
        }
        let end = out.count
        out.append(0x22)
        return (time, start..<end)
    }

    private static func key(_ name: StaticString, _ out: inout [UInt8]) {
        out.append(0x22)
        out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        out.append(contentsOf: [0x22, 0x3A])
    }

    /// A string value as written, quotes around its content; returns where the content went.
    @discardableResult
    private static func raw(_ v: Value, _ b: UnsafeBufferPointer<UInt8>, _ out: inout [UInt8]) -> Range<Int> {
        out.append(0x22)
        let start = out.count
        out.append(contentsOf: UnsafeBufferPointer(rebasing: b[v.start..<v.end]))
        let end = out.count
        out.append(0x22)
        return start..<end
    }

    /// A quoted string (quotes included); returns where its content went, and notes whether
    /// it holds an escape.
    private static func quoted(_ q: [UInt8], _ out: inout [UInt8], escaped: inout Bool) -> Range<Int> {
        let start = out.count + 1
        out.append(contentsOf: q)
        if q.contains(0x5C) { escaped = true }
        return start..<max(start, out.count - 1)
    }

    /// Whether the key at `r` starts with `prefix`, as `String.hasPrefix` says; nil when bytes
    /// cannot tell (a byte past ASCII in the prefix, or right after it).
    private static func hasPrefix(_ prefix: [UInt8], _ r: Range<Int>, _ b: UnsafeBufferPointer<UInt8>) -> Bool? {
        if prefix.contains(where: { $0 >= 0x80 }) { return nil }
        guard r.count >= prefix.count, equal(prefix, r.lowerBound..<(r.lowerBound + prefix.count), b) else { return false }
        if r.count > prefix.count, b[r.lowerBound + prefix.count] >= 0x80 { return nil }
        return true
    }

    static func isWide(_ r: Range<Int>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        b[r].contains { $0 >= 0x80 }
    }

    private static func isEmptyObject(_ v: Value, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        b[(v.start + 1)..<(v.end - 1)].allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    }
}
