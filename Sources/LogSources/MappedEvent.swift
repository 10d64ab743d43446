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
    private static let nativeWriter = SourceWriter(.native)

    /// The event as funnel's own line (compact JSON, keys sorted, no newline), which
    /// `EventDecoder` decodes to `event`: for a pipeline that reads native lines while the
    /// vendor's line is what is stored and exported.
    public var nativeLine: [UInt8] {
        // A mapped event has no other context fields, the one thing the writer refuses.
        (try? Self.nativeWriter.line(for: event)) ?? []
    }
}
