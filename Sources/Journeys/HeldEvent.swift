import FunnelModel

/// An event as a projection holds it while an input is read: its seq, time and properties,
/// and the index of its name, step and context in the input's `EventParts` (32 bytes, where
/// those parts alone take 80: almost every event repeats an earlier event's).
package struct HeldEvent: Sendable {
    package var seq: Int64
    package var time: Timestamp
    package var parts: Int32
    package var properties: [String: JSONValue]
}

/// A held event as a fold reads it: the input's held events and parts, and a position. Reads
/// each value where it is (a fold reads few of them per event) instead of copying them all.
package struct HeldView: FoldableEvent {
    package let held: [HeldEvent]
    package let parts: [EventParts.Parts]
    package let derived: [EventParts.Derived]
    package let i: Int

    package init(held: [HeldEvent], parts: [EventParts.Parts], derived: [EventParts.Derived], i: Int) {
        self.held = held
        self.parts = parts
        self.derived = derived
        self.i = i
    }

    package var seq: Int64 { held[i].seq }
    package var time: Timestamp { held[i].time }
    package var rawName: String { parts[Int(held[i].parts)].rawName }
    package var step: String? { parts[Int(held[i].parts)].step }
    package var properties: [String: JSONValue] { held[i].properties }
    package var context: EventContext { parts[Int(held[i].parts)].context }
    package var known: EventName? { derived[Int(held[i].parts)].known }
    package var contextID: Int32 { derived[Int(held[i].parts)].contextID }
}
