import FunnelModel
import StoreCore

extension EventStore: EventLogReading {
    public func forEachEvent(flow: String?, _ body: (RecordedEvent) throws -> Void) throws {
        try read(doing: "reading the log") { db in try EventStore.forEachEvent(flow: flow, in: db, body) }
    }
}
