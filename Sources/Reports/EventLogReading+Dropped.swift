import FunnelModel
import StoreCore

extension EventLogReading {
    /// The last event on `step` (fold order, not after `bound`) of each user who dropped
    /// there: read by seq for those whose journey keeps it, looked up among their events for
    /// the others (journeys stored before it was kept). Users with none are left out.
    public func lastEvents(onStep step: String, flow: String, of dropped: [DropoffTally.Dropped],
                           notAfter bound: Timestamp) throws -> [String: RecordedEvent] {
        var owners: [Int64: String] = [:]
        var unknown: [String] = []
        for d in dropped {
            if let seq = d.lastSeq { owners[seq] = d.user } else { unknown.append(d.user) }
        }
        var out = unknown.isEmpty ? [:] : try lastEvents(onStep: step, flow: flow, users: unknown, notAfter: bound)
        for event in try events(seqs: Array(owners.keys)) {
            if let user = owners[event.seq] { out[user] = event }
        }
        return out
    }
}
