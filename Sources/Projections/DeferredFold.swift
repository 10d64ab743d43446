import Foundation
import EventStore
import StoreCore
import Workers
import Journeys

/// One folded journey, ready to be written.
struct FoldedRow: Sendable {
    var key: JourneyKey
    var outcome: FoldOutcome
    /// Folded again from the log (an outcome without events then removes the row).
    var fromLog: Bool
}

/// The fold of a committed input, running off the writing thread: it hands over its rows a
/// chunk at a time (at most `capacity` chunks wait, so encoded rows do not pile up), and the
/// writing thread writes them between the batches of the next input.
final class DeferredFold: Sendable {
    enum Next: Sendable {
        case rows([FoldedRow])
        case end(Result<ProjectionUpdater.Counts, StoreError>)
    }
    private let queue = BoundedQueue<Next>(capacity: Tuning.waitingFoldChunks)
    /// The watermark once every row is written.
    let through: Int64

    init(through: Int64) { self.through = through }

    /// On the folding thread: waits while `Tuning.waitingFoldChunks` chunks wait to be written.
    func push(_ rows: [FoldedRow]) {
        queue.push(.rows(rows))
    }

    /// On the folding thread: the fold's end, after its last rows.
    func finish(_ r: Result<ProjectionUpdater.Counts, StoreError>) {
        queue.push(.end(r), waitForRoom: false)
    }

    /// The next chunk or the end; with `wait` false, nil when neither is ready.
    func next(wait: Bool) -> Next? {
        queue.pop(timeout: wait ? nil : 0)
    }

    /// Whether the writing thread has waited for this fold: it has nothing else to do, so
    /// the fold may take both cores.
    var isAwaited: Bool { queue.consumerHasWaited }

    /// Nobody will write the rows (the ingest failed): the folding thread stops waiting.
    func abandon() {
        queue.cancel()
    }
}
