import FunnelModel

/// One vendor line mapped to the native contract: the event (as `EventDecoder` gives it for
/// the same native line), the vendor's time as written and its own name for the event.
public struct MappedEvent: Sendable, Hashable {
    public var event: Event
    /// The time value as the line wrote it: a string's text, or a number's literal.
    public var timeText: String
    /// What the vendor called the event (`Onboarding Started`, `$screen`, `identify`).
    public var vendorName: String

    public init(event: Event, timeText: String, vendorName: String) {
        self.event = event
        self.timeText = timeText
        self.vendorName = vendorName
    }
}

extension SourceDefinition {
    /// funnel's own envelope (schemas/event.schema.json) as a source: what `MappedEvent.nativeLine` writes.
    public static let native = SourceDefinition(
        name: "native", timeFormat: .iso8601,
        paths: [.eventID: ["event_id"], .userID: ["user_id"], .ts: ["ts"], .event: ["event"], .flow: ["flow"],
                .step: ["step"], .properties: ["properties"], .appVersion: ["context.app_version"],
                .platform: ["context.platform"]].mapValues { $0.compactMap(SourcePath.init) },
        flags: SourcePath("context.flags").map { .object([$0]) })
}

extension MappedEvent {
    /// The event as funnel's own line (compact JSON, keys sorted, no newline), which
    /// `EventDecoder` decodes to `event`: for a pipeline that reads native lines while the
    /// vendor's line is what is stored and exported. Written byte by byte (once per vendor
    /// line ingested), as `SourceWriter(.native)` would write it.
    public var nativeLine: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        let e = event
        // The keys in sorted order: context, event, event_id, flow, properties, step, ts, user_id.
        func key(_ name: StaticString, first: Bool = false) {
            if !first { out.append(0x2C) }
            out.append(0x22)
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(contentsOf: "\":".utf8)
        }
        out.append(0x7B)
        let c = e.context
        if c.appVersion != nil || !c.flags.isEmpty || c.platform != nil {
            key("context", first: true)
            out.append(0x7B)
            var firstField = true
            if let v = c.appVersion { key("app_version", first: true); JSONValue.writeString(v, into: &out); firstField = false }
            if !c.flags.isEmpty { key("flags", first: firstField); JSONValue.object(c.flags).write(into: &out); firstField = false }
            if let p = c.platform { key("platform", first: firstField); JSONValue.writeString(p, into: &out) }
            out.append(0x7D)
            key("event")
        } else {
            key("event", first: true)
        }
        JSONValue.writeString(e.rawName, into: &out)
        key("event_id"); JSONValue.writeString(e.id, into: &out)
        key("flow"); JSONValue.writeString(e.flow, into: &out)
        if !e.properties.isEmpty { key("properties"); JSONValue.object(e.properties).write(into: &out) }
        if let step = e.step { key("step"); JSONValue.writeString(step, into: &out) }
        key("ts"); JSONValue.writeString(e.time.rfc3339(), into: &out)
        key("user_id"); JSONValue.writeString(e.userID, into: &out)
        out.append(0x7D)
        return out
    }
}
