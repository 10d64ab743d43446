import Foundation
import LogFiles
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
/// A file of `paths` is opened and closed each time, so it must be one this process holds no
/// POSIX locks on (a WAL): closing any descriptor of a file drops every such lock the process
/// holds on it, and another process's connection could then take itself for the store's
/// last, checkpoint and delete the WAL being written. A file of `held` (a SQLite database) is
/// never opened or closed here: its write-out starts through a descriptor the process holds
/// already (SQLite's own, `FileIdentity.heldDescriptor`), and is skipped while there is none.
package final class WriteBehind: Sendable {
    private let job: Repeating?

    /// Starts the write-outs of `paths` and `held` (a file not there yet is skipped until it is).
    package init(paths: [String], held: [String] = []) {
        #if os(Linux)
        // The descriptor last found for each held file, checked again before each use.
        let found = Locked<[Int32?]>(Array(repeating: nil, count: held.count))
        job = Repeating(name: "funnel-writeout", every: Tuning.writeBehindInterval) {
            for path in paths {
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { continue }
                _ = funnel_start_writeout(fd)
                close(fd)
            }
            for (i, path) in held.enumerated() {
                let file = FileIdentity(path)
                let fd = found.withLock { found -> Int32? in
                    if let fd = found[i], FileIdentity(descriptor: fd) == file { return fd }
                    found[i] = file.heldDescriptor()
                    return found[i]
                }
                // Closed and reused since the check, it starts another file's write-out: harmless.
                if let fd { _ = funnel_start_writeout(fd) }
            }
        }
        #else
        job = nil
        #endif
    }

    /// Stops the write-outs, waiting for one under way.
    package func stop() { job?.stop() }
}
