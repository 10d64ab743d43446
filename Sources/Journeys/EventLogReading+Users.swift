import FunnelModel
import StoreCore

extension EventLogReading {
    /// Hands out a flow's log one user at a time: the consecutive events of one user and flow
    /// (`forEachEvent` groups them), in the log's order. Users are told apart by their ids'
    /// bytes, as the store interns them. Memory holds one user's events.
    package func forEachUser(flow: String, _ body: ([RecordedEvent]) throws -> Void) throws {
        var group: [RecordedEvent] = []
        try forEachEvent(flow: flow) { e in
            if let first = group.first?.event,
               !first.userID.utf8.elementsEqual(e.event.userID.utf8) || !first.flow.utf8.elementsEqual(e.event.flow.utf8) {
                try body(group)
                group.removeAll(keepingCapacity: true)
            }
            group.append(e)
        }
        if !group.isEmpty { try body(group) }
    }
}
