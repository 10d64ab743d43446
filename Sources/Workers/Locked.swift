import Foundation

/// The one lock box: state that threads share, reached only inside `withLock`. A class that
/// threads share keeps its mutable state in one of these rather than a lock of its own, and
/// needs no `@unchecked Sendable` for it. Unchecked itself: the state is reached only under
/// its lock.
public final class Locked<State>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    @usableFromInline var state: State

    public init(_ state: State) { self.state = state }

    /// Runs `body` on the state under the lock: one thread at a time. Inlinable: the caller's
    /// module specializes it for its state.
    @inlinable
    public func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
