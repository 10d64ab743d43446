import Foundation
import Workers
#if os(Linux)
import Glibc
import CGlibc
#endif

/// Starts the kernel's write-out of files' dirty pages every `Tuning.writeBehindInterval`
/// while a long write runs, on a thread of its own, so that the writer's fsyncs (SQLite's at
/// each checkpoint) find their pages already on the way to disk instead of waiting for all of
/// them. It only starts write-out, never waits for it: durability stays the fsyncs'. Linux
/// only; elsewhere it does nothing.
///
/// It opens and closes each file every time, so it must never be given a file this process
/// holds POSIX locks on (a SQLite database, its `-shm`): closing any descriptor of a file
/// drops every such lock the process holds on it, and another process's connection could then
/// take itself for the store's last, checkpoint and delete the WAL being written. A WAL holds
/// no locks.
package final class WriteBehind: Sendable {
    private let job: Repeating?

    /// Starts the write-outs of `paths` (a file not there yet is skipped until it is).
    package init(paths: [String]) {
        #if os(Linux)
        job = Repeating(name: "funnel-writeout", every: Tuning.writeBehindInterval) {
            for path in paths {
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { continue }
                _ = funnel_start_writeout(fd)
                close(fd)
            }
        }
        #else
        job = nil
        #endif
    }

    /// Stops the write-outs, waiting for one under way.
    package func stop() { job?.stop() }
}
