import FunnelModel

extension SourceCutter {
    /// The value at `slot`, when present.
    func present(_ slot: Int) -> Value? {
        values[slot].present ? values[slot] : nil
    }

    /// The first present value of `slots`.
    func first(_ slots: [Int]) -> Value? {
        for s in slots where values[s].present { return values[s] }
        return nil
    }

    /// The first present value of `slots` when it is a string (nil when none is present);
    /// false when it is of another kind.
    func string(_ slots: [Int], _ out: inout Value?) -> Bool {
        out = first(slots)
        return out.map(\.isString) ?? true
    }

    /// Makes the native line's buffer at least `n` bytes (at least doubled when it grows).
    mutating func makeRoom(_ n: Int) {
        Self.makeRoom(n, in: &buffer)
    }

    private static func makeRoom(_ n: Int, in buffer: inout [UInt8]) {
        if buffer.count < n { buffer = Array(repeating: 0, count: max(n, 2 * buffer.count)) }
    }

    /// `bytes` as the native line (a line `SourceMapping` mapped).
    mutating func setLine(_ bytes: [UInt8]) {
        makeRoom(bytes.count)
        buffer.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { _ = UnsafeMutableBufferPointer(rebasing: out[..<$0.count]).update(fromContentsOf: $0) }
        }
        lineCount = bytes.count
    }

    /// What the native line is written from: the values the envelope reads, the time read.
    struct Parts {
        var id = Value(), user = Value(), flow: Value?, step: Value?, appVersion: Value?, platform: Value?
        var name = Name.quoted(0)
        var time: Timestamp
        /// The time's text: at `timeRange` of the vendor's line, or else `timeBytes`.
        var timeRange: Range<Int>?
        /// The first properties object present, and its member list.
        var properties: Plan.Properties?
    }

    /// Writes the native line: keys sorted (context, event, event_id, flow, properties, step,
    /// ts, user_id), as `MappedEvent.nativeLine` does, in one pass into room made for it.
    mutating func write(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let (time, timeRange) = readTime(b) else { return false }
        // The buffer is moved out and back, so that the line is read and written in one call
        // that borrows the cutter: each call from this mutating method to a non-mutating one
        // copies the whole cutter. The parts and fields are the caller's, filled in place:
        // handed back by value, each would be copied on its way out.
        var out: [UInt8] = []
        swap(&out, &buffer)
        var parts = Parts(time: time, timeRange: timeRange)
        var native: NativeFields?
        let written = nativeLine(b, parts: &parts, fields: &native, into: &out)
        swap(&out, &buffer)
        guard let written else { return false }
        lineCount = written
        if let native {
            fields = native
            vendorFields = vendorFields(parts)
        }
        return true
    }

    /// The native line of `b` into `out` (grown to the room it can take), from `parts` (its
    /// time set) filled here: its count, and where its values went to `fields` (left nil when
    /// a string of its envelope holds an escape); nil when the line is off the common path.
    private func nativeLine(_ b: UnsafeBufferPointer<UInt8>, parts: inout Parts, fields: inout NativeFields?,
                            into out: inout [UInt8]) -> Int? {
        guard envelopeParts(b, into: &parts), properties(into: &parts) else { return nil }
        Self.makeRoom(room(parts, line: b.count), in: &out)
        return out.withUnsafeMutableBufferPointer { p in
            guard var w = ByteWriter(p), writeLine(parts, b, fields: &fields, into: &w) else { return nil }
            return w.count
        }
    }

    /// The values the native line's envelope reads to `parts` (its time set already); false
    /// when one is not of the common path.
    private func envelopeParts(_ b: UnsafeBufferPointer<UInt8>, into parts: inout Parts) -> Bool {
        var id: Value?, user: Value?, step: Value?
        guard string(plan.eventID, &id), let id, id.end > id.start,
              string(plan.userID, &user), let user, user.end > user.start,
              string(plan.flow, &parts.flow), parts.flow != nil || plan.defaultFlow != nil,
              string(plan.step, &step),
              string(plan.appVersion, &parts.appVersion), string(plan.platform, &parts.platform),
              let name = naming(b, step: &step) else { return false }
        parts.id = id
        parts.user = user
        parts.step = step
        parts.name = name
        return true
    }

    /// The first properties object present to `parts`; false when the first present is not
    /// an object.
    private func properties(into parts: inout Parts) -> Bool {
        for p in plan.properties where values[p.slot].present {
            guard values[p.slot].kind == 0x7B else { return false }
            parts.properties = p
            break
        }
        return true
    }

    /// The room the native line of `parts` can take: its keys, its values' bytes, and its
    /// flags' and properties' members, each list at most the line's length (a member written
    /// as `,"key":value` takes no more bytes than it and its separator take in the line).
    private func room(_ parts: Parts, line: Int) -> Int {
        func count(_ v: Value?) -> Int { v.map { $0.end - $0.start } ?? 0 }
        var n = 256 + count(parts.id) + count(parts.user) + count(parts.step) + count(parts.appVersion) + count(parts.platform)
        n += parts.flow.map { $0.end - $0.start } ?? plan.defaultFlow?.count ?? 0
        switch parts.name {
        case .raw(let v): n += count(v)
        case .quoted(let k): n += plan.quotedNames[k].count
        }
        n += parts.timeRange?.count ?? timeBytes.count
        if plan.flagList >= 0 { n += line } else if !plan.flagSlots.isEmpty { n += count(first(plan.flagSlots)) }
        if parts.properties != nil { n += line }
        return n
    }

    /// The native line into `w`, and where its values went to `fields` (nil when a string of
    /// its envelope holds an escape); false when the line is off the common path.
    private func writeLine(_ parts: Parts, _ b: UnsafeBufferPointer<UInt8>, fields: inout NativeFields?,
                           into w: inout ByteWriter) -> Bool {
        w.byte(0x7B)
        let contextAt = w.count
        guard writeContext(b, appVersion: parts.appVersion, platform: parts.platform, into: &w) else { return false }
        // `"context":` is 10 bytes; the object follows it.
        let context = w.count > contextAt ? (contextAt + 10)..<w.count : nil
        if w.count > contextAt { w.byte(0x2C) }
        w.literal("\"event\":")
        var escaped = false
        let nameRange: Range<Int>
        switch parts.name {
        case .raw(let v): nameRange = Self.raw(v, b, &w); escaped = escaped || v.escaped
        case .quoted(let k): nameRange = Self.quoted(plan.quotedNames[k], &w, escaped: &escaped)
        }
        w.literal(",\"event_id\":")
        let idRange = Self.raw(parts.id, b, &w)
        w.literal(",\"flow\":")
        let flowRange = parts.flow.map { Self.raw($0, b, &w) } ?? Self.quoted(plan.defaultFlow ?? [], &w, escaped: &escaped)
        let propertiesAt = w.count
        if let p = parts.properties, !writeProperties(b, list: p.list, into: &w) { return false }
        // `,"properties":` is 14 bytes; the object follows it.
        let properties = w.count > propertiesAt ? (propertiesAt + 14)..<w.count : nil
        var stepRange: Range<Int>?
        if let step = parts.step { w.literal(",\"step\":"); stepRange = Self.raw(step, b, &w) }
        w.literal(",\"ts\":\"")
        let timeStart = w.count
        if let r = parts.timeRange { w.copy(r, of: b) } else { w.copy(timeBytes) }
        let timeText = timeStart..<w.count
        w.literal("\",\"user_id\":")
        let userRange = Self.raw(parts.user, b, &w)
        w.byte(0x7D)
        escaped = escaped || parts.id.escaped || parts.user.escaped || (parts.flow?.escaped ?? false) || (parts.step?.escaped ?? false)
        fields = escaped ? nil : NativeFields(eventID: idRange, name: nameRange, userID: userRange, flow: flowRange, step: stepRange,
                                              timeText: timeText, time: parts.time, properties: properties, context: context)
        return true
    }

    private func writeContext(_ b: UnsafeBufferPointer<UInt8>, appVersion: Value?, platform: Value?,
                              into w: inout ByteWriter) -> Bool {
        let start = w.count
        w.literal("\"context\":{")
        let open = w.count
        if let appVersion { w.literal("\"app_version\":"); Self.raw(appVersion, b, &w) }
        let beforeFlags = w.count
        if w.count > open { w.byte(0x2C) }
        w.literal("\"flags\":")
        let flagsStart = w.count
        if plan.flagList >= 0 {
            w.byte(0x7B)
            let skip = plan.flagPrefix.count
            // By index: the list is read in place, not copied.
            for i in members[plan.flagList].indices where members[plan.flagList][i].key.count > skip {
                let m = members[plan.flagList][i]
                guard let flag = m.flag else { return false }
                if !flag { continue }
                if w.count > flagsStart + 1 { w.byte(0x2C) }
                w.byte(0x22)
                w.copy((m.key.lowerBound + skip)..<m.key.upperBound, of: b)
                w.literal("\":")
                w.copy(m.value, of: b)
            }
            if w.count == flagsStart + 1 { w.truncate(to: flagsStart) } else { w.byte(0x7D) }
        } else if let f = first(plan.flagSlots) {
            guard f.kind == 0x7B else { return false }
            if !Self.isEmptyObject(f, b) { w.copy(f.start..<f.end, of: b) }
        }
        if w.count == flagsStart { w.truncate(to: beforeFlags) }
        if let platform {
            if w.count > open { w.byte(0x2C) }
            w.literal("\"platform\":")
            Self.raw(platform, b, &w)
        }
        if w.count == open { w.truncate(to: start) } else { w.byte(0x7D) }
        return true
    }

    /// The members of the properties object at member list `list` but those other fields
    /// read (and flags by prefix).
    private func writeProperties(_ b: UnsafeBufferPointer<UInt8>, list: Int, into w: inout ByteWriter) -> Bool {
        let start = w.count
        w.literal(",\"properties\":{")
        let open = w.count
        let flags = plan.holdsFlags(list: list)
        // By index: the list is read in place, not copied.
        for i in members[list].indices where !members[list][i].consumed {
            let m = members[list][i]
            if flags {
                guard let flag = m.flag else { return false }
                if flag { continue }
            }
            if w.count > open { w.byte(0x2C) }
            w.byte(0x22)
            w.copy(m.key, of: b)
            w.literal("\":")
            w.copy(m.value, of: b)
        }
        if w.count == open { w.truncate(to: start) } else { w.byte(0x7D) }
        return true
    }

    /// Where the values of the line just written are in the vendor's line `b`; the values of
    /// the id, user and time fields' later choices to `otherValues`.
    mutating func vendorFields(_ parts: Parts) -> VendorFields? {
        guard let t = first(plan.ts) else { return nil }
        var passed: Range<Int>?
        if case .raw(let v) = parts.name { passed = v.start..<v.end }
        addLaterChoices(plan.eventID)
        addLaterChoices(plan.userID)
        addLaterChoices(plan.ts)
        return VendorFields(eventID: parts.id.start..<parts.id.end, name: passed, userID: parts.user.start..<parts.user.end,
                            flow: parts.flow.map { $0.start..<$0.end }, step: parts.step.map { $0.start..<$0.end }, time: t.start..<t.end)
    }

    /// The present values of `slots` after the first, to `otherValues`.
    private mutating func addLaterChoices(_ slots: [Int]) {
        var chosen = false
        for s in slots where values[s].present {
            if chosen { otherValues.append(values[s].start..<values[s].end) }
            chosen = true
        }
    }

    /// The time, checked as `SourceDefinition.TimeFormat.time` does, and where its text is
    /// in the vendor's line; nil there when the native line writes it otherwise (in
    /// `timeBytes`).
    private mutating func readTime(_ b: UnsafeBufferPointer<UInt8>) -> (Timestamp, Range<Int>?)? {
        guard let t = first(plan.ts) else { return nil }
        let text = UnsafeBufferPointer(rebasing: b[t.start..<t.end])
        switch plan.timeFormat {
        case .iso8601:
            guard t.isString, !t.escaped, text.count > 10, let parsed = Timestamp.parse(bytes: text, lastDate: &lastDate) else { return nil }
            return (parsed, t.start..<t.end)
        case .sqlUTC:
            guard t.isString, !t.escaped, text.count >= 19, text[10] == 0x20,
                  text[19...].allSatisfy({ $0 == 0x2E || (0x30...0x39).contains($0) }) else { return nil }
            timeBytes.removeAll(keepingCapacity: true)
            timeBytes.append(contentsOf: text)
            timeBytes.append(0x5A)
            guard let parsed = timeBytes.withUnsafeBufferPointer({ Timestamp.parse(bytes: $0, lastDate: &lastDate) })
            else { return nil }
            return (parsed, nil)
        case .unix:
            guard t.kind == 0x2D || (0x30...0x39).contains(t.kind),
                  let parsed = SourceDefinition.TimeFormat.unixTime(bytes: text) else { return nil }
            timeBytes.removeAll(keepingCapacity: true)
            parsed.appendRFC3339(into: &timeBytes)
            return (parsed, nil)
        }
    }

    /// A string value as written, quotes around its content; returns where the content went.
    @discardableResult
    private static func raw(_ v: Value, _ b: UnsafeBufferPointer<UInt8>, _ w: inout ByteWriter) -> Range<Int> {
        w.byte(0x22)
        let start = w.count
        w.copy(v.start..<v.end, of: b)
        let end = w.count
        w.byte(0x22)
        return start..<end
    }

    /// A quoted string (quotes included); returns where its content went, and notes whether
    /// it holds an escape.
    private static func quoted(_ q: [UInt8], _ w: inout ByteWriter, escaped: inout Bool) -> Range<Int> {
        let start = w.count + 1
        w.copy(q)
        if q.contains(0x5C) { escaped = true }
        return start..<max(start, w.count - 1)
    }
}
