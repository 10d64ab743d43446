import Foundation

extension Array where Element: Sendable {
    /// `transform` of every item, in item order, worked out on up to `workers` threads at once
    /// (the machine's, `WorkerCount.machine`, unless told), each taking the next item not yet
    /// taken. The first error stops the threads taking more items and is thrown once they are
    /// all done. The results are the same whatever the count.
    public func parallelMap<T: Sendable, E: Error>(workers: Int = WorkerCount.machine,
                                                  _ transform: @Sendable (Element) throws(E) -> T) throws(E) -> [T] {
        guard !isEmpty else { return [] }
        let items = self
        let shared = Locked(Progress<T, E>())
        DispatchQueue.concurrentPerform(iterations: Swift.max(1, Swift.min(workers, items.count))) { _ in
            // Each thread keeps what it made, and hands it over once, at its end.
            var made: [(index: Int, value: T)] = []
            while let i = shared.withLock({ $0.next(below: items.count) }) {
                // Appended as it is made: through a `Result`, a value would be copied out of it.
                do throws(E) {
                    made.append((i, try transform(items[i])))
                } catch {
                    shared.withLock { if $0.failure == nil { $0.failure = error } }
                }
            }
            shared.withLock { $0.made.append(made) }
        }
        return try shared.withLock { $0.inOrder() }.get()
    }
}

/// The threads of one `parallelMap`: the next item, what they made and the first failure
/// (shared behind `Locked`).
private struct Progress<T, E: Error> {
    var taken = 0
    /// What each thread made (its values' items and the values), a thread's whole list at once.
    var made: [[(index: Int, value: T)]] = []
    var failure: E?

    mutating func next(below count: Int) -> Int? {
        guard failure == nil, taken < count else { return nil }
        taken += 1
        return taken - 1
    }

    /// The values made, each moved to its item's place (a value is not copied: a copy of a
    /// value holding references retains each, and dropping `made` releases them again).
    mutating func inOrder() -> Result<[T], E> {
        if let failure { return .failure(failure) }
        let count = made.reduce(0) { $0 + $1.count }
        let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            while var part = made.popLast() {
                while let (index, value) = part.popLast() { (base + index).initialize(to: consume value) }
            }
            initialized = count
        }
        return .success(values)
    }
}
