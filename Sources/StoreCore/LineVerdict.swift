/// What the ingest driver decided a line is (`LineClassifier`), as a store's writer records it.
package enum LineVerdict: UInt8, Sendable {
    /// A new event: appended to the log with the next seq.
    case event
    /// A copy of a stored event (or of an earlier line of the input): the same event again.
    case duplicate
    /// A stored event's id with another body: the first arrival stays, this copy is kept aside.
    case conflict
    /// Not an event (`ParsedLine.quarantineReason` says why).
    case quarantined
}
