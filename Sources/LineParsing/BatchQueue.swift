import Foundation
import Workers

/// The hand-off of parsed batches from the parsing thread to the writing thread, with the
/// emptied batches going back for the parser to fill again.
final class BatchQueue: Sendable {
    enum Item: Sendable { case batch(LineBatch), end(ParseEnd), failed(any Error) }
    private let queue: BoundedQueue<Item>
    /// Batches the consumer is done with, emptied, for the producer to fill again, and
    /// whether the queue was cancelled (then none is kept).
    private let spares = Locked((batches: [LineBatch](), cancelled: false))

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
        b.cuts.removeAll(keepingCapacity: true)
        b.rejections.removeAll(keepingCapacity: true)
        b.bytesRead = 0
        b.segmentEnd = nil
        spares.withLock { spares in
            if spares.batches.count < Tuning.spareBatches && !spares.cancelled { spares.batches.append(b) }
        }
    }

    /// A batch to fill again, when one is back.
    func spare() -> LineBatch? {
        spares.withLock { $0.batches.popLast() }
    }

    var isCancelled: Bool { queue.isCancelled }

    func cancel() {
        queue.cancel()
        spares.withLock { spares in
            spares.cancelled = true
            spares.batches.removeAll()
        }
    }
}
