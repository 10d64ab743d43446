import XCTest
import TestSupport
import Foundation
import FunnelModel
import EventStore
import LogFiles
import Flows
import Simulator
import StoreCore
@testable import Projections
@testable import Journeys

/// The journeys ingest keeps (folded from memory, resumed from the stored fold, or refolded
/// from the log) are exactly the journeys a rebuild folds from the log.
final class ProjectionUpdaterTests: DayFilesTestCase {
    func check(files: [String], bufferLimit: Int, expectPaths: Bool) throws {
        let definition = try glp1
        let store = try EventStore(path: dir.appendingPathComponent("s-\(bufferLimit)-\(UUID().uuidString).sqlite").path,
                                   migrations: ProjectionStore.migrations)
        let updater = ProjectionUpdater(definitions: [definition], bufferLimit: bufferLimit)
        let ingestor = Ingestor(store: store, options: IngestOptions(flows: [definition]), observer: updater)
        var total = ProjectionUpdater.Counts()
        for f in files {
            _ = try ingestor.ingest([InputSource(path: f)])
            total.fromMemory += updater.lastCounts.fromMemory
            total.resumed += updater.lastCounts.resumed
            total.fromLog += updater.lastCounts.fromLog
        }
        let incremental = try journeys(store)
        XCTAssertGreaterThan(incremental.count, 100)
        try ProjectionStore.rebuild(store: store, definitions: [definition])
        let rebuilt = try journeys(store)
        XCTAssertEqual(incremental.count, rebuilt.count)
        for (a, b) in zip(incremental, rebuilt) where a != b || a.binary() != b.binary() {
            XCTFail("journey of \(a.userID) differs from the rebuild:\n\(a)\n\(b)")
            break
        }
        if expectPaths {
            XCTAssertGreaterThan(total.fromMemory, 0, "\(total)")
            XCTAssertGreaterThan(total.resumed, 0, "\(total)")
            XCTAssertGreaterThan(total.fromLog, 0, "\(total)")
        } else {
            XCTAssertGreaterThan(total.fromLog, 0, "\(total)")
        }
    }

    func testEveryFoldPathMatchesARebuild() throws {
        // Users crossing midnight resume; late events (next day's file) refold from the log.
        var files = try dayFiles(users: 400, seed: 11, into: "a")
        // The same users coming back later: every one resumes from the stored fold.
        files += try dayFiles(users: 150, seed: 12, start: "2026-10-09", days: 1, into: "b")
        // And an old file arriving last: out of order for everyone in it.
        files += try dayFiles(users: 60, seed: 13, start: "2026-09-20", days: 1, into: "c")
        try check(files: files, bufferLimit: 250_000, expectPaths: true)
        // A tiny buffer: most users spill to the log, the result is the same.
        try check(files: files, bufferLimit: 500, expectPaths: false)
    }

    func testResumeStateRoundTrips() throws {
        var b = JourneyBuilder("r")
        b.add(0, "onboarding.started", "welcome")
        b.add(0, "onboarding.step_viewed", "welcome")
        b.add(1, "onboarding.step_viewed", "signIn")
        b.add(2, "onboarding.unknown_thing", "nowhere")
        let all = b.events
        guard let fold = JourneyFold.fold(Array(all.prefix(3)), definition: miniFlow) else { return XCTFail("no fold") }
        let bytes = fold.finish().binary(resume: fold.resume)
        let (journey, state) = try bytes.withUnsafeBytes { try Journey.decode(binary: $0) }
        XCTAssertEqual(journey, fold.finish())
        XCTAssertEqual(state, fold.resume)
        XCTAssertEqual(try Journey(binary: bytes), fold.finish())
        guard let state else { return XCTFail("no resume state") }
        var resumed = JourneyFold(resuming: journey, state, definition: miniFlow)
        resumed.apply(all[3])
        XCTAssertEqual(resumed.finish(), JourneyFold.journey(of: all, definition: miniFlow))
        XCTAssertEqual(resumed.finish().binary(), JourneyFold.journey(of: all, definition: miniFlow)?.binary())
    }
}
