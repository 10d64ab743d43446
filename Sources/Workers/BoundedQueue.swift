import Foundation

/// A bounded hand-off from one producing thread to one consuming thread: the producer waits
/// while `capacity` items wait; the consumer takes them in order, waiting or not. Once
/// cancelled, pushes fail at once (the producer stops) and what waited is dropped.
/// Unchecked: its state is reached only under its condition's lock; the items are values
/// handed across it.
package final class BoundedQueue<Item: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Item] = []
    private let capacity: Int
    private var cancelled = false
    private var consumerWaited = false

    package init(capacity: Int) { self.capacity = capacity }

    /// Adds `item`, first waiting while the queue is full unless `waitForRoom` is false (an
    /// end marker); false once the queue is cancelled.
    @discardableResult
    package func push(_ item: Item, waitForRoom: Bool = true) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while waitForRoom && items.count >= capacity && !cancelled { condition.wait() }
        if cancelled { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// The next item: waits up to `timeout` seconds for one (forever when nil, not at all when
    /// 0); nil when none came.
    package func pop(timeout: TimeInterval?) -> Item? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = timeout.map { Date(timeIntervalSinceNow: $0) }
        while items.isEmpty {
            if timeout == 0 { return nil }
            consumerWaited = true
            if let deadline {
                if !condition.wait(until: deadline) && items.isEmpty { return nil }
            } else {
                condition.wait()
            }
        }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    /// Whether the consumer has had to wait for an item.
    package var consumerHasWaited: Bool {
        condition.lock()
        defer { condition.unlock() }
        return consumerWaited
    }

    package var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// Drops what waits and fails every push from now on.
    package func cancel() {
        condition.lock()
        cancelled = true
        items.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}
