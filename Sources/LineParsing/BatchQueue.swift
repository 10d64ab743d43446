import Foundation
import Workers

/// The hand-off of parsed batches from the parsing thread to the writing thread, with the
/// emptied batches going back for the parser to fill again.
final class BatchQueue: @unchecked Sendable {
    enum Item { case batch(LineBatch), end(ParseEnd), failed(any Error) }
    private let queue: BoundedQueue<Item>
    /// Batches the consumer is done with, emptied, for the producer to fill again (guarded
    /// by the queue's lock).
    private var spares: [LineBatch] = []

    init(capacity: Int) { queue = BoundedQueue(capacity: capacity) }

    /// Blocks while full; returns false once the consumer cancelled.
    func push(_ item: Item) -> Bool { queue.push(item) }

    /// The next item; nil when none came within `timeout` seconds.
    func pop(timeout: TimeInterval) -> Item? { queue.pop(timeout: timeout) }

    /// Keeps `batch`'s buffers for the producer (at most `Tuning.spareBatches` are kept).
    func recycle(_ batch: consuming LineBatch) {
        var b = batch
        b.bytes.removeAll(keepingCapacity: true)
        b.lines.removeAll(keepingCapacity: true)
        b.bytesRead = 0
        b.segmentEnd = nil
        queue.withLock { cancelled in
            if spares.count < Tuning.spareBatches && !cancelled { spares.append(b) }
        }
    }

    /// A batch to fill again, when one is back.
    func spare() -> LineBatch? {
        queue.withLock { _ in spares.popLast() }
    }

    var isCancelled: Bool { queue.isCancelled }

    func cancel() {
        queue.cancel()
        queue.withLock { _ in spares.removeAll() }
    }
}
