import XCTest
import TestSupport
import Foundation
import FunnelModel
import Flows
@testable import Projections
@testable import Journeys

/// The glance read from a stored journey's bytes is the glance at the whole decoded journey,
/// for every journey of every sample flow, and asked about every step and every key.
final class JourneyGlanceTests: XCTestCase {
    /// Read in shares on two threads (and in more shares than rows), every journey's glance
    /// comes once, the same as in one pass, and the shares follow the table's order.
    func testGlancesReadInSharesAreTheSinglePassGlances() throws {
        let store = try ingest([repositoryRoot.appendingPathComponent("sample-data/glp1").path], into: temporaryStorePath())
        guard let definition = Flows.builtIn.first(where: { $0.id == "glp1" }) else { return XCTFail("no glp1") }
        let request = JourneyGlance.Request(steps: definition.orderedStepIDs, keys: definition.collectedKeys.sorted())
        var single: [JourneyGlance] = []
        try ProjectionStore.forEachGlance(flow: "glp1", definition: definition, store: store, asOf: nil, request: request) { single.append($0) }
        XCTAssertGreaterThan(single.count, 100)
        for parts in [2, 3, 100_000] {
            let shares = PartStates(repeating: (starts: 0, glances: [JourneyGlance]()), count: parts)
            try ProjectionStore.forEachGlance(flow: "glp1", definition: definition, store: store, asOf: nil, request: request,
                                              parts: parts, start: { part in shares.update(part) { $0.starts += 1; $0.glances = [] } },
                                              { part, g in shares.update(part) { $0.glances.append(g) } })
            let all = shares.all.filter { $0.starts > 0 }
            XCTAssertEqual(all.map(\.starts), Array(repeating: 1, count: all.count), "\(parts) shares")
            XCTAssertEqual(all.flatMap(\.glances), single, "\(parts) shares")
            XCTAssertGreaterThan(all[0].glances.count, 0)
            XCTAssertGreaterThan(all[1].glances.count, 0)
        }
    }

    func testTheStoredGlanceIsTheWholeJourneysGlance() throws {
        let flows = ["glp1", "baby-basics", "screentime-rewards", "shieldai", "trendy", "edge"]
        let store = try ingest(flows.map { repositoryRoot.appendingPathComponent("sample-data/\($0)").path }, into: temporaryStorePath())
        var glances = 0, outcomes = 0, answers = 0
        for definition in Flows.builtIn {
            let journeys = try ProjectionStore.journeys(flow: definition.id, definition: definition, store: store)
            XCTAssertFalse(journeys.isEmpty, definition.id)
            // Steps and keys asked for twice too, as two lanes' drop-offs on one step ask.
            let request = JourneyGlance.Request(steps: definition.orderedStepIDs + ["noSuchStep"] + definition.orderedStepIDs.suffix(3),
                                                keys: definition.collectedKeys.sorted() + ["noSuchKey"] + definition.collectedKeys.sorted().prefix(2))
            var whole: [String: JourneyGlance] = [:]
            for j in journeys { whole[j.userID] = JourneyGlance(j, request: request) }
            try ProjectionStore.forEachGlance(flow: definition.id, definition: definition, store: store, asOf: nil, request: request) { g in
                XCTAssertEqual(g, whole[g.userID], "\(definition.id) \(g.userID)")
                glances += 1
                outcomes += g.outcomes.filter { !$0.isEmpty }.count
                answers += g.answers.compactMap { $0 }.count
            }
        }
        XCTAssertEqual(glances, 1_074)
        XCTAssertGreaterThan(outcomes, 1_000)
        XCTAssertGreaterThan(answers, 5_000)
        // A journey without a definition's names: every name in full, read by text.
        let j = JourneyBinaryTests.sample
        let request = JourneyGlance.Request(steps: ["goal", "somewhereElse", "signIn", "signIn"], keys: ["goal", "weightKg", "nested", "goal"])
        for names in [JourneyNames.none, JourneyBinaryTests.names] {
            var prompted = j
            prompted.promptOutcomes = ["signIn": ["sign_in_failed reason=network"], "somewhereElse": ["permission_prompted"]]
            prompted.lastSeqOnCurrentStep = 300
            let bytes = prompted.binary(resume: JourneyBinaryTests.sampleResume, names: names)
            let g = try bytes.withUnsafeBytes { try JourneyGlance.read(binary: $0, request: request, cache: JourneyDecodingCache(), names: names) }
            XCTAssertEqual(g, JourneyGlance(prompted, request: request))
            XCTAssertEqual(g.places.map { $0?.status }, [.undetermined, nil, .shown, .shown])
            XCTAssertEqual(g.outcomes, [[], ["permission_prompted"], ["sign_in_failed reason=network"], ["sign_in_failed reason=network"]])
            XCTAssertEqual(g.answers[3], g.answers[0])
            XCTAssertEqual(g.lastSeqOnCurrentStep, 300)
            XCTAssertNotNil(g.answers[3])
        }
        // Version 1 bytes are read whole.
        let v1 = JourneyBinaryTests.bytes(hex: JourneyBinaryTests.version1Hex)
        let old = try v1.withUnsafeBytes { try JourneyGlance.read(binary: $0, request: request, cache: JourneyDecodingCache(), names: .none) }
        XCTAssertEqual(old, JourneyGlance(try Journey(binary: v1), request: request))
    }
}
