import GRDB
import EventStore
import StoreCore
import LineParsing
@testable import Projections

/// An ingest's observer for tests: forwards every call to a `ProjectionUpdater`, numbers its
/// `willCommit`s and fails the one numbered `failAt` (nil: none) before forwarding it, and
/// hands each commit to the test's recorders.
final class ObservedUpdater: IngestObserver {
    let inner: ProjectionUpdater
    let failAt: Int?
    private(set) var willCommits = 0
    /// Runs after each `willCommit` was forwarded.
    var afterWillCommit: (CommittedInput) -> Void = { _ in }
    /// Runs before each `didCommit` is forwarded.
    var beforeDidCommit: (CommittedInput, EventStore) -> Void = { _, _ in }

    init(_ inner: ProjectionUpdater, failAt: Int? = nil) {
        self.inner = inner
        self.failAt = failAt
    }

    func makeEventSink() -> any ParsedEventSink { inner.makeEventSink() }
    func betweenBatches(in db: Database) throws { try inner.betweenBatches(in: db) }
    func willCommit(_ input: CommittedInput, in db: Database) throws {
        willCommits += 1
        if willCommits == failAt { throw StoreError(doing: "committing input or segment \(willCommits)", reason: "stopped by the test") }
        try inner.willCommit(input, in: db)
        afterWillCommit(input)
    }
    func didCommit(_ input: CommittedInput, store: EventStore) {
        beforeDidCommit(input, store)
        inner.didCommit(input, store: store)
    }
    func finish(_ summary: IngestSummary, store: EventStore) throws { try inner.finish(summary, store: store) }
}
