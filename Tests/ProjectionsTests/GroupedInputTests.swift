import XCTest
import TestSupport
import Foundation
import GRDB
import EventStore
import StoreCore
import LogFiles
import LineParsing
@testable import Projections
@testable import Journeys

/// Small inputs committed together (`Ingestor.Limits.groupBytes`): the observer works on each
/// in the open transaction, is told of each after the one commit, in order, and the journeys
/// are those of a rebuild; a failure rolls the group back whole, and a re-run completes it.
final class GroupedInputTests: DayFilesTestCase {
    /// An observer that records each `didCommit`: the input's last event as a reader (which
    /// sees only what committed) finds it, and the ledger's complete rows.
    final class Recorder {
        let observer: ObservedUpdater
        var told: [(lastSeq: Int64, seenSeq: Int64, complete: Int)] = []
        var willCommits: Int { observer.willCommits }

        init(_ inner: ProjectionUpdater, failAt: Int? = nil) {
            observer = ObservedUpdater(inner, failAt: failAt)
            observer.beforeDidCommit = { [unowned self] input, store in
                let seen = (try? store.writer.read { db in
                    (try Int64.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) FROM events") ?? 0,
                     try Int.fetchOne(db, sql: "SELECT count(*) FROM inputs WHERE outcome = 'complete'") ?? 0)
                }) ?? (-1, -1)
                self.told.append((input.lastSeq, seen.0, seen.1))
            }
        }
    }

    func store(_ name: String) throws -> EventStore {
        try EventStore(path: dir.appendingPathComponent(name).path, migrations: ProjectionStore.migrations)
    }

    func ingest(_ files: [String], into store: EventStore, observer: Recorder, groupBytes: Int64) throws -> IngestSummary {
        var limits = Ingestor.Limits()
        limits.groupBytes = groupBytes
        let ingestor = Ingestor(store: store, options: IngestOptions(flows: [try glp1]), observer: observer.observer, limits: limits)
        return try ingestor.ingest(files.map { InputSource(path: $0) })
    }

    func marks(_ store: EventStore) throws -> (Int64, Int64) {
        try store.writer.read { db in
            (try ProjectionStore.watermark(in: db), try EventStore.lastSeq(in: db))
        }
    }

    func inputs(_ store: EventStore) throws -> [String] {
        try store.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT path, lines, accepted, duplicates, conflicts, quarantined, outcome FROM inputs ORDER BY id")
                .map { "\($0)" }
        }
    }

    func testInputsCommittedTogetherAreToldInOrderAfterTheCommit() throws {
        let files = try dayFiles(users: 300, seed: 61, start: "2026-10-01", days: 4, into: "a")
        XCTAssertGreaterThanOrEqual(files.count, 5)
        let sizes = try files.map { try XCTUnwrap(FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int64) }
        // About three inputs a group.
        let groupBytes = sizes.reduce(0, +) / Int64(files.count) * 3
        let definition = try glp1
        let alone = try store("alone.sqlite")
        let aloneObserver = Recorder(ProjectionUpdater(definitions: [definition]))
        let a = try ingest(files, into: alone, observer: aloneObserver, groupBytes: 0)
        let grouped = try store("grouped.sqlite")
        let observer = Recorder(ProjectionUpdater(definitions: [definition]))
        let g = try ingest(files, into: grouped, observer: observer, groupBytes: groupBytes)
        XCTAssertEqual([g.lines, g.accepted, g.duplicates, g.conflicts, g.quarantined], [a.lines, a.accepted, a.duplicates, a.conflicts, a.quarantined])
        XCTAssertGreaterThan(g.accepted, 1000)
        // Each input its own complete ledger row, the same as when each commits alone.
        XCTAssertEqual(try inputs(grouped), try inputs(alone))
        XCTAssertEqual(try inputs(grouped).count, files.count)
        // Told once per input, in seq order, each after its events and ledger row committed.
        XCTAssertEqual(observer.told.count, files.count)
        XCTAssertEqual(observer.willCommits, files.count)
        XCTAssertEqual(observer.told.map(\.lastSeq), aloneObserver.told.map(\.lastSeq))
        XCTAssertEqual(observer.told.map(\.lastSeq), observer.told.map(\.lastSeq).sorted())
        for (i, t) in observer.told.enumerated() {
            XCTAssertGreaterThanOrEqual(t.seenSeq, t.lastSeq, "input \(i) told before its events committed")
            XCTAssertGreaterThanOrEqual(t.complete, i + 1, "input \(i) told before its ledger row committed")
        }
        // Alone, each is told when it alone committed; grouped, some are told after the
        // inputs after them committed too.
        XCTAssertEqual(aloneObserver.told.enumerated().map { $0.element.complete }, Array(1...files.count))
        XCTAssertTrue(observer.told.enumerated().contains { $0.element.complete > $0.offset + 1 })
        XCTAssertLessThan(Set(observer.told.map(\.complete)).count, files.count)
        // The journeys are a rebuild's, the watermark at the end.
        let (watermark, last) = try marks(grouped)
        XCTAssertEqual(watermark, last)
        let incremental = try journeys(grouped)
        XCTAssertGreaterThan(incremental.count, 250)
        XCTAssertEqual(incremental, try journeys(alone))
    }

    func testAFailureRollsTheGroupBackAndARerunCompletesIt() throws {
        let files = try dayFiles(users: 200, seed: 62, start: "2026-10-01", days: 3, into: "a")
        XCTAssertGreaterThan(files.count, 3)
        let definition = try glp1
        let st = try store("s.sqlite")
        // One group for every input; the third fails before the group commits.
        XCTAssertThrowsError(try ingest(files, into: st, observer: Recorder(ProjectionUpdater(definitions: [definition]), failAt: 3),
                                        groupBytes: 1 << 40))
        XCTAssertEqual(try inputs(st), [])
        XCTAssertEqual(try st.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM events") }, 0)
        let again = try ingest(files, into: st, observer: Recorder(ProjectionUpdater(definitions: [definition])), groupBytes: 1 << 40)
        XCTAssertEqual(again.skipped.count, 0)
        let whole = try store("whole.sqlite")
        _ = try ingest(files, into: whole, observer: Recorder(ProjectionUpdater(definitions: [definition])), groupBytes: 0)
        XCTAssertEqual(try inputs(st), try inputs(whole))
        XCTAssertEqual(try journeys(st), try journeys(whole))
    }

    /// Inputs already in the ledger, among new ones in a group, are skipped as when each
    /// commits alone; the group still commits at the run's end when the last is skipped.
    func testSkippedInputsInAGroup() throws {
        let files = try dayFiles(users: 150, seed: 63, start: "2026-10-01", days: 3, into: "a")
        XCTAssertGreaterThan(files.count, 3)
        let definition = try glp1
        let st = try store("s.sqlite")
        let lastFile = try XCTUnwrap(files.last)
        _ = try ingest([files[1], lastFile], into: st, observer: Recorder(ProjectionUpdater(definitions: [definition])), groupBytes: 1 << 40)
        let summary = try ingest(files, into: st, observer: Recorder(ProjectionUpdater(definitions: [definition])), groupBytes: 1 << 40)
        XCTAssertEqual(summary.skipped.map(\.path), [files[1], lastFile])
        let (watermark, last) = try marks(st)
        XCTAssertEqual(watermark, last)
        XCTAssertEqual(try inputs(st).count, files.count)
        XCTAssertTrue(try inputs(st).allSatisfy { $0.contains("complete") })
    }
}
