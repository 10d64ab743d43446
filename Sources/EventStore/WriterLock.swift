#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One writer of a store at a time, across processes: an exclusive `flock` on the file
/// `STORE.lock` beside the store, taken before the store is opened (so that two ingests of a
/// new store do not both run its migrations) and held until the ingest ends. The kernel
/// releases it when the process ends, however it ends.
public final class WriterLock: Sendable {
    /// The lock file.
    public let path: String
    private let fd: Int32

    /// Takes the lock of the store at `storePath`. When another process holds it: with `wait`,
    /// calls `onWait` once and blocks until it is free; without, throws.
    public init(storePath: String, wait: Bool, onWait: () -> Void = {}) throws {
        path = storePath + ".lock"
        let f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard f >= 0 else {
            throw StoreError(doing: "taking the writer lock \(path)", reason: String(cString: strerror(errno)))
        }
        fd = f
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return }
        let busy = errno == EWOULDBLOCK
        guard busy, wait else {
            let reason = busy ? "another ingest is writing \(storePath); run again when it ends, or leave out --no-wait to wait for it"
                : String(cString: strerror(errno))
            close(fd)
            throw StoreError(doing: "taking the writer lock \(path)", reason: reason)
        }
        onWait()
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(fd)
                throw StoreError(doing: "waiting for the writer lock \(path)", reason: reason)
            }
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
