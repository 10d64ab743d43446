import FunnelModel
import Journeys
import StoreCore

/// The memory store's journeys: it keeps none, so they are folded from its log at each read
/// (`FoldedJourneys`, with the one `JourneyFold`), as a store without a projection reads them.
extension MemoryStore {
    public var journeys: FoldedJourneys { FoldedJourneys(log: self) }

    /// What `funnel rebuild` does, on this store: every user's journey in every flow of the
    /// log folded again from the log, with its flow's definition when there is one; how many.
    public func rebuild(definitions: [FlowDefinition]) throws -> Int {
        // After every event, with room for the arithmetic of a fold.
        let after = Timestamp(micros: Int64.max / 2)
        var count = 0
        for flow in try flows() {
            let folder = FlowFolder(definitions.first { $0.id == flow })
            try journeys.forEachFolded(flow: flow, folder: folder, asOf: after) { _ in count += 1 }
        }
        return count
    }
}
