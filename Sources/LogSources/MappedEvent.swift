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
