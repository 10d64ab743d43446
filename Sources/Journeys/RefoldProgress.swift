import Workers

/// How far a read has come folding journeys again from the log for an as-of before their
/// last events (the slow part of such a read): `done` of `total` journeys, told to `report`
/// after each change, for a progress bar. A read counts the journeys it will fold before it
/// folds them (`expect`); each share of a read, and each later read given the same progress,
/// adds its own, so `total` may grow while `done` catches up. Shares fold at once on threads
/// of their own: `report` is called under a lock, one call at a time, from any of them.
/// Unchecked only for `report`, a closure that need not be `Sendable`: it is called inside the
/// counts' lock box (`Locked`), so never from two threads at once.
public final class RefoldProgress: @unchecked Sendable {
    private let counts = Locked((done: 0, total: 0))
    private let report: (_ done: Int, _ total: Int) -> Void

    public init(_ report: @escaping (_ done: Int, _ total: Int) -> Void) {
        self.report = report
    }

    /// `count` more journeys to fold.
    public func expect(_ count: Int) {
        guard count > 0 else { return }
        counts.withLock { c in
            c.total += count
            report(c.done, c.total)
        }
    }

    /// One journey folded again (one a read did not count beforehand, such as a journey of a
    /// read-only store left stale by a killed ingest, counts in the total as it is folded).
    public func folded() {
        counts.withLock { c in
            c.done += 1
            c.total = max(c.total, c.done)
            report(c.done, c.total)
        }
    }
}
