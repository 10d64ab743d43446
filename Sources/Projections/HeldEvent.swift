import FunnelModel

/// An event as a projection holds it while an input is read: its seq, time and properties,
/// and the index of its name, step and context in the input's `EventParts` (32 bytes, where
/// those parts alone take 80: almost every event repeats an earlier event's).
struct HeldEvent: Sendable {
    var seq: Int64
    var time: Timestamp
    var parts: Int32
    var properties: [String: JSONValue]
}

/// A held event as a fold reads it: the input's held events and parts, and a position. Reads
/// each value where it is (a fold reads few of them per event) instead of copying them all.
struct HeldView: FoldableEvent {
    let held: [HeldEvent]
    let parts: [EventParts.Parts]
    let derived: [EventParts.Derived]
    let i: Int

    var seq: Int64 { held[i].seq }
    var time: Timestamp { held[i].time }
    var rawName: String { parts[Int(held[i].parts)].rawName }
    var step: String? { parts[Int(held[i].parts)].step }
    var properties: [String: JSONValue] { held[i].properties }
    var context: EventContext { parts[Int(held[i].parts)].context }
    var known: EventName? { derived[Int(held[i].parts)].known }
    var contextID: Int32 { derived[Int(held[i].parts)].contextID }
}
