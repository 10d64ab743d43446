import Foundation
import Workers

/// The hand-off of parsed batches from the parsing thread to the writing thread.
final class BatchQueue: Sendable {
    enum Item: Sendable { case batch(LineBatch), end(ParseEnd), failed(any Error) }
    private let queue: BoundedQueue<Item>

    init(capacity: Int) { queue = BoundedQueue(capacity: capacity) }

    /// Blocks while full; returns false once the consumer cancelled.
    func push(_ item: Item) -> Bool { queue.push(item) }

    /// The next item; nil when none came within `timeout` seconds.
    func pop(timeout: TimeInterval) -> Item? { queue.pop(timeout: timeout) }

    var isCancelled: Bool { queue.isCancelled }

    func cancel() {
        queue.cancel()
    }
}
