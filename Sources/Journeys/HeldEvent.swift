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

/// What a fold of one flow reads of an input's table once for all its events: each name's
/// step code (`EventTable.stepCodes`) and, by properties number, the drift keys of the answers
/// the flow's definition does not list and the answers by their codes, and by context number
/// the flags by their codes (`EventTable.answers`). Empty: the fold looks each event's up itself.
/// Shared by reference: the view of each journey's events holds it with one retain.
package final class TableCodes: Sendable {
    package let stepCodes: [Int32]
    package let unlisted: [[String]?]
    /// By properties number, its answers by their code.
    package let answers: CodedRows
    /// By context number, its flags by their code.
    package let flags: CodedRows

    package init(stepCodes: [Int32] = [], unlisted: [[String]?] = [], answers: CodedRows = CodedRows(),
                 flags: CodedRows = CodedRows()) {
        self.stepCodes = stepCodes
        self.unlisted = unlisted
        self.answers = answers
        self.flags = flags
    }

    /// No codes: the fold looks each event's up itself.
    package static let none = TableCodes()
}

/// A held event as a fold reads it: the input's held events and parts, and a position. Reads
/// each value where it is (a fold reads few of them per event) instead of copying them all.
package struct HeldView: FoldableEvent {
    package let held: [HeldEvent]
    package let table: EventTable
    /// The event's position (a fold moves one view along the events).
    package var i: Int
    /// The table's codes for the fold's flow.
    package let codes: TableCodes

    package init(held: [HeldEvent], table: EventTable, i: Int, codes: TableCodes = .none) {
        self.held = held
        self.table = table
        self.i = i
        self.codes = codes
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
        return n < codes.stepCodes.count ? codes.stepCodes[n] : nil
    }
    package var unlistedAnswers: [String]? {
        let p = Int(held[i].properties)
        return p < codes.unlisted.count ? codes.unlisted[p] : nil
    }
    package func forEachAnswerCode(_ body: (_ code: Int32, _ value: JSONValue) -> Void) -> Bool {
        codes.answers.forEach(row: Int(held[i].properties), body)
    }
    package func forEachFlagCode(_ body: (_ code: Int32, _ value: JSONValue) -> Void) -> Bool {
        codes.flags.forEach(row: Int(held[i].context), body)
    }
    package func stepCode(in byStep: [String: Int32]) -> Int32 {
        let n = Int(held[i].names)
        if n < codes.stepCodes.count { return codes.stepCodes[n] }
        guard let step = table.names[n].step else { return -1 }
        return byStep[step] ?? -1
    }
}
