import Foundation

/// A thread that lives as long as the process and runs the closures it is given, in order.
/// Work that recurs (parsing one input after another, folding one input after another) runs
/// on the same thread each time, so the memory one round frees is what the next one reuses
/// (glibc keeps freed memory in the arena of the thread that allocated it).
public final class WorkerThread: Sendable {
    private let jobs = BoundedQueue<@Sendable () -> Void>(capacity: .max)

    public init(name: String) {
        let jobs = jobs
        WorkerThread.start(name: name) {
            while true {
                if let job = jobs.pop(timeout: nil) { job() }
            }
        }
    }

    /// Starts a thread named `name` that runs `body` (the toolkit's threads all start here).
    static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            nameForTheSystem(name)
            body()
        }
        thread.name = name
        thread.stackSize = Tuning.workerStack
        thread.start()
    }

    /// Gives the calling thread `name` where the system shows it (top, perf): Foundation
    /// keeps `Thread.name` to itself on Linux. At most 15 bytes are kept.
    private static func nameForTheSystem(_ name: String) {
        #if os(Linux)
        let fd = open("/proc/thread-self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        #endif
    }

    public func run(_ job: @escaping @Sendable () -> Void) {
        jobs.push(job)
    }

    /// Runs `job` after the jobs given before it, and waits for its answer.
    public func runAndWait<T: Sendable>(_ job: @escaping @Sendable () -> T) -> T {
        let answer = BoundedQueue<T>(capacity: 1)
        run { answer.push(job(), waitForRoom: false) }
        while true {
            if let value = answer.pop(timeout: nil) { return value }
        }
    }
}
