import Foundation

/// A job run every `interval` seconds on a thread of its own, from when it is made until
/// `stop()` (a heartbeat while a long write runs).
public final class Repeating: Sendable {
    /// `stop()` to the thread, and the thread's answer that it has stopped.
    private let stopping = BoundedQueue<Bool>(capacity: 1)
    private let stopped = BoundedQueue<Bool>(capacity: 1)

    public init(name: String, every interval: TimeInterval, _ job: @escaping @Sendable () -> Void) {
        let stopping = stopping, stopped = stopped
        WorkerThread.start(name: name) {
            while stopping.pop(timeout: interval) == nil { job() }
            stopped.push(true)
        }
    }

    /// Stops the job, waiting for a run under way to end; true the first time, later calls
    /// do nothing and return false.
    @discardableResult
    public func stop() -> Bool {
        guard stopping.push(true, waitForRoom: false) else { return false }
        _ = stopped.pop(timeout: nil)
        stopping.cancel()
        return true
    }
}
