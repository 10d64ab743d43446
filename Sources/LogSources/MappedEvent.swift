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
        var context: [(String, JSONValue)] = []
        if let v = e.context.appVersion { context.append(("app_version", .string(v))) }
        if !e.context.flags.isEmpty { context.append(("flags", .object(e.context.flags))) }
        if let p = e.context.platform { context.append(("platform", .string(p))) }
        var keys = ["event", "event_id", "flow"]
        if !context.isEmpty { keys.insert("context", at: 0) }
        if !e.properties.isEmpty { keys.append("properties") }
        if e.step != nil { keys.append("step") }
        keys += ["ts", "user_id"]
        JSONValue.writeObject(keys.count, keys, into: &out) { key, out in
            switch key {
            case "context":
                JSONValue.writeObject(context.count, context.map(\.0), into: &out) { k, out in
                    context.first { $0.0 == k }?.1.write(into: &out)
                }
            case "event": JSONValue.writeString(e.rawName, into: &out)
            case "event_id": JSONValue.writeString(e.id, into: &out)
            case "flow": JSONValue.writeString(e.flow, into: &out)
            case "properties": JSONValue.object(e.properties).write(into: &out)
            case "step": JSONValue.writeString(e.step ?? "", into: &out)
            case "ts": JSONValue.writeString(e.time.rfc3339(), into: &out)
            default: JSONValue.writeString(e.userID, into: &out)
            }
        }
        return out
    }
}
