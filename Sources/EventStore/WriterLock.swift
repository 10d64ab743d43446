#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import StoreCore

/// One writer of a store at a time, across processes: an exclusive `flock` on the file
/// `STORE.lock` beside the store, taken before the store is opened (so that two ingests of a
/// new store do not both run its migrations) and held until the ingest or rebuild ends. The
/// kernel releases it when the process ends, however it ends. Readers only look whether it is
/// held (`isHeld`), to say that the figures they read are still being written.
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
        if WriterLock.take(fd, tries: Tuning.lockTries) { return }
        let busy = errno == EWOULDBLOCK
        guard busy, wait else {
            let reason = busy ? "another ingest or rebuild is writing \(storePath); run again when it ends, or leave out --no-wait to wait for it"
                : String(cString: strerror(errno))
            close(fd)
            throw StoreError(doing: "taking the writer lock \(path)", reason: reason, kind: busy ? .busy : .failed)
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

    /// Whether another process holds the lock of the store at `storePath` now (an ingest or
    /// rebuild is writing it). Looks with a shared lock taken and dropped at once, on a lock
    /// file opened read-only and never created; a writer trying in that instant tries again
    /// (`Tuning.lockTries`).
    public static func isHeld(storePath: String) -> Bool {
        let f = open(storePath + ".lock", O_RDONLY | O_CLOEXEC)
        guard f >= 0 else { return false }
        defer { close(f) }
        if flock(f, LOCK_SH | LOCK_NB) == 0 {
            flock(f, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }

    /// The lock taken without blocking, tried again a few times a millisecond apart while
    /// busy (a reader's look holds it for microseconds); false with `errno` set when not.
    private static func take(_ fd: Int32, tries: Int) -> Bool {
        for attempt in 0..<tries {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK, attempt + 1 < tries else { return false }
            usleep(1_000)
        }
        return false
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
