import Foundation

/// How far a read has come folding journeys again from the log for an as-of before their
/// last events (the slow part of such a read): `done` of `total` journeys, told to `report`
/// after each change, for a progress bar. A read counts the journeys it will fold before it
/// folds them (`expect`); each share of a read, and each later read given the same progress,
/// adds its own, so `total` may grow while `done` catches up. Shares fold at once on threads
/// of their own: `report` is called under a lock, one call at a time, from any of them.
public final class RefoldProgress: @unchecked Sendable {
    private let lock = NSLock()
    private var done = 0
    private var total = 0
    private let report: (_ done: Int, _ total: Int) -> Void

    public init(_ report: @escaping (_ done: Int, _ total: Int) -> Void) {
        self.report = report
    }

    /// `count` more journeys to fold.
    public func expect(_ count: Int) {
        guard count > 0 else { return }
        lock.withLock {
            total += count
            report(done, total)
        }
    }

    /// One journey folded again (one a read did not count beforehand, such as a journey of a
    /// read-only store left stale by a killed ingest, counts in the total as it is folded).
    public func folded() {
        lock.withLock {
            done += 1
            total = max(total, done)
            report(done, total)
        }
    }
}
