import FunnelModel

/// An event as a projection holds it while an input is read: its seq and time, and the
/// numbers of its names, context and properties in the input's `EventParts` (32 bytes, no
/// reference to retain: almost every event repeats an earlier event's parts).
package struct HeldEvent: Sendable {
    package var seq: Int64
    package var time: Timestamp
    package var names: Int32
    package var context: Int32
    package var properties: Int32
}

/// A held event as a fold reads it: the input's held events and parts, and a position. Reads
/// each value where it is (a fold reads few of them per event) instead of copying them all.
package struct HeldView: FoldableEvent {
    package let held: [HeldEvent]
    package let table: EventTable
    /// The event's position (a fold moves one view along the events).
    package var i: Int
    /// The step code of each of the table's names in the fold's flow (`EventTable.stepCodes`;
    /// empty: each event's step is looked up).
    package let stepCodes: [Int32]
    /// By the table's properties number, the drift keys of the answers the fold's definition
    /// does not list (`EventTable.unlistedAnswers`; empty: each event's are checked).
    package let unlisted: [[String]]

    package init(held: [HeldEvent], table: EventTable, i: Int, stepCodes: [Int32] = [], unlisted: [[String]] = []) {
        self.held = held
        self.table = table
        self.i = i
        self.stepCodes = stepCodes
        self.unlisted = unlisted
    }

    package var seq: Int64 { held[i].seq }
    package var time: Timestamp { held[i].time }
    package var rawName: String { table.names[Int(held[i].names)].rawName }
    package var step: String? { table.names[Int(held[i].names)].step }
    package var properties: [String: JSONValue] { table.properties[Int(held[i].properties)] }
    package var context: EventContext { table.contexts[Int(held[i].context)] }
    package var known: EventName? { table.names[Int(held[i].names)].known }
    /// Equal numbers are the same context bytes, so the same context.
    package var contextID: Int32 { held[i].context }
    package var listedStepCode: Int32? {
        let n = Int(held[i].names)
        return n < stepCodes.count ? stepCodes[n] : nil
    }
    package var unlistedAnswers: [String]? {
        let p = Int(held[i].properties)
        return p < unlisted.count ? unlisted[p] : nil
    }
    package func stepCode(in codes: [String: Int32]) -> Int32 {
        let n = Int(held[i].names)
        if n < stepCodes.count { return stepCodes[n] }
        guard let step = table.names[n].step else { return -1 }
        return codes[step] ?? -1
    }
}
