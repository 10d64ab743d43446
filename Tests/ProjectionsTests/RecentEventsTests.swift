import XCTest
import TestSupport
import Foundation
import GRDB
import FunnelModel
import EventStore
import LogFiles
import StoreCore
@testable import Projections
@testable import Journeys

/// The events of an input's new users are kept for the next input of the same ingest: a user
/// with a late event there is folded from them and the new ones, to the journey a rebuild
/// folds from the log.
final class RecentEventsTests: DayFilesTestCase {
    func held(_ seqs: [Int64]) -> [HeldEvent] {
        seqs.map { HeldEvent(seq: $0, time: Timestamp(micros: $0 * 1_000), names: 0, context: 0, properties: 0) }
    }

    final class Input {}

    func testOnlyCommittedInputsAreRead() {
        let recent = RecentEvents(limit: 5)
        let table = EventParts().table
        let a = JourneyKey(flow: "glp1", user: "a"), b = JourneyKey(flow: "glp1", user: "b")
        let first = Input(), second = Input(), third = Input(), rolledBack = Input()
        recent.keep(a, held([1, 2, 3]), table: table, owner: first)
        // Past the limit of the input: not kept.
        recent.keep(b, held([4, 5, 6]), table: table, owner: first)
        XCTAssertNil(recent.previous(a), "read before its input committed")
        recent.committed(first)
        XCTAssertEqual(recent.previous(a)?.events.map(\.seq), [1, 2, 3])
        XCTAssertTrue(recent.previous(a)?.table === table)
        XCTAssertNil(recent.previous(b))
        // An input whose transaction rolled back: never read, dropped once a later one commits.
        recent.keep(b, held([7]), table: table, owner: rolledBack)
        recent.keep(b, held([8]), table: table, owner: second)
        recent.committed(second)
        XCTAssertEqual(recent.previous(b)?.events.map(\.seq), [8])
        XCTAssertEqual(recent.previous(a)?.events.map(\.seq), [1, 2, 3], "the input before the last is still read")
        // The last committed input is read first.
        recent.keep(a, held([9]), table: table, owner: third)
        recent.committed(third)
        XCTAssertEqual(recent.previous(a)?.events.map(\.seq), [9])
        // An input's new users may still be folding when it commits: what they keep is read.
        let fourth = Input()
        recent.committed(fourth)
        recent.keep(b, held([10]), table: table, owner: fourth)
        XCTAssertEqual(recent.previous(b)?.events.map(\.seq), [10])
        XCTAssertEqual(recent.previous(a)?.events.map(\.seq), [9])
        recent.clear()
        XCTAssertNil(recent.previous(a))
        XCTAssertNil(recent.previous(b))
    }

    func testSmallInputsAreKeptBackWhileTheirEventsFitTheLimit() {
        let recent = RecentEvents(limit: 5)
        let table = EventParts().table
        let owners = (0..<5).map { _ in Input() }
        let keys = (0..<5).map { JourneyKey(flow: "glp1", user: "u\($0)") }
        // Four inputs of two events each, committed one after another.
        for i in 0..<4 {
            recent.keep(keys[i], held([Int64(2 * i + 1), Int64(2 * i + 2)]), table: table, owner: owners[i])
            recent.committed(owners[i])
        }
        // Before the fourth: the third and the second (4 events) fit the limit of 5; the first
        // would take them to 6.
        XCTAssertNil(recent.previous(keys[0]))
        XCTAssertEqual(recent.previous(keys[1])?.events.map(\.seq), [3, 4])
        XCTAssertEqual(recent.previous(keys[2])?.events.map(\.seq), [5, 6])
        XCTAssertEqual(recent.previous(keys[3])?.events.map(\.seq), [7, 8])
        // A fifth input: the fourth and the third are kept before it, the second no longer.
        recent.keep(keys[4], held([9, 10, 11, 12, 13]), table: table, owner: owners[4])
        recent.committed(owners[4])
        XCTAssertNil(recent.previous(keys[1]))
        XCTAssertEqual(recent.previous(keys[2])?.events.map(\.seq), [5, 6])
        XCTAssertEqual(recent.previous(keys[4])?.events.map(\.seq), [9, 10, 11, 12, 13])
        // The input before the last is kept whatever its size; none before it then.
        let sixth = Input()
        recent.committed(sixth)
        XCTAssertEqual(recent.previous(keys[4])?.events.map(\.seq), [9, 10, 11, 12, 13])
        XCTAssertNil(recent.previous(keys[3]))
        XCTAssertNil(recent.previous(keys[2]))
    }

    func testLateEventsInOneIngestFoldFromTheInputBeforeAsARebuildDoes() throws {
        // Three days of files in one ingest: sessions across midnight bring late events into
        // the next day's files.
        let files = try dayFiles(users: 400, seed: 17, into: "a")
        // Each input committed on its own: late users fold from the input before's events.
        let own = try ingestAndRebuild(files, groupBytes: 0, name: "own")
        XCTAssertGreaterThan(own.fromRecent, 10, "\(own)")
        // Inputs committed together: an input's events are not read before its commit, so the
        // inputs of one transaction fold their late users from the log.
        XCTAssertEqual(try ingestAndRebuild(files, groupBytes: 1 << 30, name: "grouped").fromRecent, 0)
    }

    /// Ingests `files` in one run, checks that the journeys and facts are those a rebuild
    /// folds from the log, and returns how the inputs' journeys were folded.
    func ingestAndRebuild(_ files: [String], groupBytes: Int64, name: String) throws -> ProjectionUpdater.Counts {
        let definition = try glp1
        let store = try EventStore(path: dir.appendingPathComponent("\(name).sqlite").path, migrations: ProjectionStore.migrations)
        let updater = ProjectionUpdater(definitions: [definition])
        let observed = ObservedUpdater(updater)
        var total = ProjectionUpdater.Counts()
        // `lastCounts` after each commit: the fold of the input before, written then.
        observed.afterWillCommit = { _ in
            let c = updater.lastCounts
            total.fromMemory += c.fromMemory
            total.resumed += c.resumed
            total.fromLog += c.fromLog
            total.fromRecent += c.fromRecent
        }
        var limits = Ingestor.Limits()
        limits.groupBytes = groupBytes
        let summary = try Ingestor(store: store, options: IngestOptions(flows: [definition]), observer: observed, limits: limits)
            .ingest(files.map { InputSource(path: $0) })
        XCTAssertGreaterThan(summary.accepted, 5_000)

        func rows(_ sql: String) throws -> [String] {
            try store.writer.read { db in try Row.fetchAll(db, sql: sql).map { "\($0.databaseValues)" } }
        }
        let journeySQL = "SELECT flow, user_id, last_us, definition, hex(data) FROM journeys ORDER BY flow, user_id"
        let factSQL = "SELECT flow, user_id, last_us, hex(facts) FROM journey_facts ORDER BY flow, user_id"
        let journeys = try rows(journeySQL), facts = try rows(factSQL)
        XCTAssertGreaterThan(journeys.count, 300)
        try ProjectionStore.rebuild(store: store, definitions: [definition])
        XCTAssertEqual(journeys, try rows(journeySQL), name)
        XCTAssertEqual(facts, try rows(factSQL), name)
        return total
    }
}
