import XCTest
import Foundation
import FunnelModel
import LogFiles
import EventStore
import Flows
import Simulator
@testable import Projections
import TestSupport
import StoreCore
@testable import Journeys

func allJourneys(_ store: EventStore, _ definitions: [FlowDefinition] = Flows.builtIn) throws -> [String: Journey] {
    var out: [String: Journey] = [:]
    for d in definitions {
        for j in try ProjectionStore.journeys(flow: d.id, definition: d, store: store) { out[d.id + "/" + j.userID] = j }
    }
    return out
}

extension Journey {
    /// The journey without what depends on arrival numbers.
    var withoutSeqs: Journey {
        var j = self
        j.lastSeqOnCurrentStep = nil
        j.lastSeq = nil
        return j
    }
}

final class ProjectionStoreTests: XCTestCase {
    /// Property: for random event sets, any split into ingests, any arrival order and any
    /// duplicates give the same projections as one full rebuild, and as one ordered ingest.
    func testAnySplitOrderAndDuplicatesEqualARebuild() throws {
        let glp1 = try FlowCatalog().flow("glp1")
        for seed in UInt64(1)...4 {
            let sim = try Simulation(flow: glp1, options: SimulationOptions(users: 40, seed: seed, days: 2)).run()
            var rng = SplitMix64(seed: seed &* 7919)
            var lines = (0..<sim.events.count).map { sim.events.line($0) }
            let ordered = lines
            // Re-sent copies, then any order, then any split into ingests.
            for _ in 0..<(lines.count / 20) { lines.append(lines[Int(rng.next() % UInt64(lines.count))]) }
            for i in stride(from: lines.count - 1, to: 0, by: -1) { lines.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
            let parts = 1 + Int(rng.next() % 6)
            let dir = Scratch.directory("funnel-prop")
            var files: [String] = []
            var cut = 0
            for p in 0..<parts {
                let end = p == parts - 1 ? lines.count : min(lines.count, cut + Int(rng.next() % UInt64(lines.count / parts * 2 + 1)))
                let path = dir.appendingPathComponent("part-\(p).ndjson").path
                try (lines[cut..<end].joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
                files.append(path)
                cut = end
            }
            let split = try ingest(files, into: temporaryStorePath())
            let incremental = try allJourneys(split)
            let users = Set(ordered.compactMap { $0.split(separator: "\"").drop { $0 != "user_id" }.dropFirst(2).first })
            XCTAssertEqual(incremental.count, users.count, "seed \(seed)")
            XCTAssertGreaterThan(users.count, 30)
            try ProjectionStore.rebuild(store: split, definitions: Flows.builtIn)
            XCTAssertEqual(try allJourneys(split), incremental, "seed \(seed): incremental projections differ from a rebuild")
            let whole = dir.appendingPathComponent("ordered.ndjson").path
            try (ordered.joined(separator: "\n") + "\n").write(toFile: whole, atomically: true, encoding: .utf8)
            let once = try allJourneys(try ingest([whole], into: temporaryStorePath()))
            // Seqs number arrivals: in another arrival order the last event's seq is another.
            XCTAssertEqual(once.mapValues(\.withoutSeqs), incremental.mapValues(\.withoutSeqs),
                           "seed \(seed): arrival order changed a journey")
        }
    }

    func testEveryJourneyMatchesTheSimulatorsTruth() throws {
        let glp1 = try FlowCatalog().flow("glp1")
        let sim = try Simulation(flow: glp1, options: SimulationOptions(users: 120, seed: 11, days: 2)).run()
        let dir = Scratch.directory("funnel-truth")
        _ = try CollectorWriter(seed: 11).write(sim.events, to: dir.path)
        let store = try ingest([dir.path], into: temporaryStorePath())
        let journeys = try allJourneys(store)
        var completed = 0
        defer { XCTAssertGreaterThan(completed, 40) }
        for truth in sim.users {
            guard let j = journeys["glp1/" + truth.userID] else {
                XCTAssertFalse(truth.started, "\(truth.userID) has no journey")
                continue
            }
            XCTAssertEqual(j.started, truth.started, truth.userID)
            XCTAssertEqual(j.completedAt != nil, truth.completed, truth.userID)
            XCTAssertEqual(Set(j.visits.map(\.step)), Set(truth.viewedSteps), truth.userID)
            if let at = truth.abandonedAt { XCTAssertEqual(j.currentStep, at, truth.userID) }
            // Once every answer is in, the fold knows the lane and the whole path the simulator
            // walked; before that only as much as the answers given.
            if truth.completed {
                completed += 1
                XCTAssertEqual(j.lane, truth.lane, truth.userID)
                XCTAssertEqual(j.path.filter { $0.status == .shown || $0.status == .beforeStart }.map(\.step), truth.expectedPath, truth.userID)
            } else if let lane = j.lane {
                XCTAssertEqual(lane, truth.lane, truth.userID)
            }
        }
    }

    func testAsOfRefoldsJourneysWithLaterEventsAndIgnoresTheFarFuture() throws {
        let glp1 = try FlowCatalog().flow("glp1")
        let path = temporaryStorePath()
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent()
        let lines = [
            #"{"event_id":"a1","event":"onboarding.started","user_id":"u-a","ts":"2026-10-01T10:00:00Z","flow":"glp1","step":"signIn"}"#,
            #"{"event_id":"a2","event":"onboarding.step_viewed","user_id":"u-a","ts":"2026-10-01T10:00:01Z","flow":"glp1","step":"signIn"}"#,
            #"{"event_id":"b1","event":"onboarding.started","user_id":"u-b","ts":"2026-10-03T10:00:00Z","flow":"glp1","step":"signIn"}"#,
            #"{"event_id":"b2","event":"onboarding.step_viewed","user_id":"u-b","ts":"2026-10-03T10:00:01Z","flow":"glp1","step":"signIn"}"#,
            #"{"event_id":"a3","event":"onboarding.step_viewed","user_id":"u-a","ts":"2099-01-01T00:00:00Z","flow":"glp1","step":"journeyStatus"}"#,
        ]
        let file = dir.appendingPathComponent("x.ndjson").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let store = try ingest([file], into: path)
        let now = try XCTUnwrap(Timestamp.parse("2026-11-21T00:00:00Z"))
        let asOf = try XCTUnwrap(try store.defaultAsOf(now: now))
        XCTAssertEqual(asOf.description, "2026-10-03T10:00:01.000Z", "an event dated 2099 must not move as-of")
        let stored = try ProjectionStore.journeys(flow: "glp1", definition: glp1, store: store)
        let cut = try ProjectionStore.journeys(stored, asOf: asOf, definition: glp1, store: store)
        let a = try XCTUnwrap(cut.first { $0.userID == "u-a" })
        XCTAssertEqual(a.currentStep, "signIn", "the 2099 event is not folded as of 2026")
        XCTAssertEqual(a.state(asOf: asOf, idleSeconds: 86_400), .abandoned)
        let early = try XCTUnwrap(Timestamp.parse("2026-10-02"))
        XCTAssertEqual(try ProjectionStore.journeys(stored, asOf: early, definition: glp1, store: store).map(\.userID), ["u-a"])
    }
}
