import XCTest
import TestSupport
import FunnelModel
import Flows
@testable import Projections
@testable import Journeys

/// The stored report facts: what this version writes round-trips bit for bit, and facts an
/// older version wrote still decode.
final class JourneyFactsTests: XCTestCase {
    static var sample: JourneyFacts {
        var f = JourneyFacts.empty
        f.startedAt = 1_790_000_000_123_456
        f.firstEventAt = 1_790_000_000_000_001
        f.lastEventAt = 1_790_000_900_000_000
        f.lane = 1
        f.current = -1
        f.appVersion = "3.2.1"
        f.cohorts = 5
        f.flagsOn = 2
        f.bits = [15, 2, 0]
        f.seconds = [12.5, .nan, 0.1 + 0.2]
        return f
    }

    /// `sample` as version 1 wrote it (every seconds value as a double).
    static let version1Hex = "01018089bea2dbffad068280afa2dbffad0680a4d6fce1ffad06020106332e322e310502034f"
        + "00000000000029400240343333333333d33f"

    func assertSame(_ a: JourneyFacts, _ b: JourneyFacts, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual([a.startedAt, a.completedAt, a.firstEventAt, a.lastEventAt],
                       [b.startedAt, b.completedAt, b.firstEventAt, b.lastEventAt], file: file, line: line)
        XCTAssertEqual([a.lane, a.current], [b.lane, b.current], file: file, line: line)
        XCTAssertEqual(a.appVersion, b.appVersion, file: file, line: line)
        XCTAssertEqual([a.cohorts, a.flagsOn], [b.cohorts, b.flagsOn], file: file, line: line)
        XCTAssertEqual(a.bits, b.bits, file: file, line: line)
        XCTAssertEqual(a.seconds.map(\.bitPattern), b.seconds.map(\.bitPattern), file: file, line: line)
        XCTAssertEqual(a.drift, b.drift, file: file, line: line)
        XCTAssertEqual(a.runSlots, b.runSlots, file: file, line: line)
        XCTAssertEqual(a.runMicros, b.runMicros, file: file, line: line)
        XCTAssertEqual(a.otherRunSteps, b.otherRunSteps, file: file, line: line)
        XCTAssertEqual(a.pathSlots, b.pathSlots, file: file, line: line)
        XCTAssertEqual(a.silenceRuns, b.silenceRuns, file: file, line: line)
        XCTAssertEqual(a.silenceStartsRun, b.silenceStartsRun, file: file, line: line)
        XCTAssertEqual(a.silenceMicros, b.silenceMicros, file: file, line: line)
        XCTAssertEqual(a.lastSeq, b.lastSeq, file: file, line: line)
        XCTAssertEqual(a.platform, b.platform, file: file, line: line)
    }

    func testVersion1FactsStillDecode() throws {
        let bytes = JourneyBinaryTests.bytes(hex: Self.version1Hex)
        assertSame(try bytes.withUnsafeBytes { try JourneyFacts(binary: $0) }, Self.sample)
    }

    func testVersion5WritesWholeMicrosecondsAsVarintsAndRoundTrips() throws {
        let v1 = JourneyBinaryTests.bytes(hex: Self.version1Hex)
        let v2 = Self.sample.binary()
        XCTAssertEqual(v2.first, 5)
        // 12.5 s as a 4-byte varint instead of 8 bytes; 0.1 + 0.2 keeps its double; one
        // byte each for no drift facts, no view runs, no path, no silences, no last seq and
        // no platform.
        XCTAssertEqual(v2.count, v1.count - 4 + 6)
        // Version 4 is version 5 without the path, silences, last seq and platform; version 3
        // is version 4 without the view runs.
        let v4 = [4] + v2.dropFirst().dropLast(4)
        assertSame(try Array(v4).withUnsafeBytes { try JourneyFacts(binary: $0) }, Self.sample)
        let v3 = [3] + v2.dropFirst().dropLast(5)
        assertSame(try Array(v3).withUnsafeBytes { try JourneyFacts(binary: $0) }, Self.sample)
        assertSame(try v2.withUnsafeBytes { try JourneyFacts(binary: $0) }, Self.sample)
        // Decoding into a value that held other facts (as a report does row after row).
        var reused = JourneyFacts.empty
        try v1.withUnsafeBytes { try reused.decode($0) }
        try v2.withUnsafeBytes { try reused.decode($0) }
        assertSame(reused, Self.sample)
    }

    /// The view runs: slots, steps on no lane each named once, times before the first event
    /// and far after it; a value that held runs decodes version 3 facts to none.
    func testViewRunsRoundTrip() throws {
        var f = Self.sample
        f.runSlots = [0, -1, 2, -2, -1, 1]
        f.otherRunSteps = ["offLane", "another"]
        f.runMicros = [f.firstEventAt - 5, f.firstEventAt, f.firstEventAt + 1, f.firstEventAt + 86_400_000_000,
                       f.firstEventAt + 90_000_000_000, f.lastEventAt]
        let bytes = f.binary()
        var back = JourneyFacts.empty
        try bytes.withUnsafeBytes { try back.decode($0) }
        assertSame(back, f)
        let v3 = [3] + Self.sample.binary().dropFirst().dropLast(5)
        try Array(v3).withUnsafeBytes { try back.decode($0) }
        assertSame(back, Self.sample)
        // What paths reads besides: the path's slots, the silences, the last seq, the platform.
        f.pathSlots = [0, 2, -1]
        f.silenceRuns = [2, 5]
        f.silenceStartsRun = [true, false]
        f.silenceMicros = [600_000_001, 86_400_000_000]
        f.lastSeq = 1_523_442
        f.platform = "android"
        let full = f.binary()
        try full.withUnsafeBytes { try back.decode($0) }
        assertSame(back, f)
        try Self.sample.binary().withUnsafeBytes { try back.decode($0) }
        assertSame(back, Self.sample)
        // A slot beyond the facts' slots is refused, not read.
        var wrong = f
        wrong.runSlots = [3]
        wrong.runMicros = [f.firstEventAt]
        XCTAssertThrowsError(try wrong.binary().withUnsafeBytes { try JourneyFacts(binary: $0) })
    }

    /// Facts made from a journey number its runs by slot, steps on no lane by name.
    func testFactsKeepTheJourneysViewRuns() throws {
        let definition = try XCTUnwrap(Flows.builtIn.first { $0.id == "glp1" })
        let slots = JourneyFacts.slots(definition)
        var j = JourneyBinaryTests.sample
        let t = j.firstEventAt
        j.viewRuns = [.init(step: slots[1], at: t), .init(step: "nowhere", at: t.adding(seconds: 2)),
                      .init(step: slots[0], at: t.adding(seconds: 3)), .init(step: "nowhere", at: t.adding(seconds: 4.5))]
        var index: [String: Int] = [:]
        for (k, s) in slots.enumerated() { index[s] = k }
        let f = JourneyFacts(j, definition: definition, slots: index)
        XCTAssertEqual(f.runSlots, [1, -1, 0, -1])
        XCTAssertEqual(f.otherRunSteps, ["nowhere"])
        XCTAssertEqual(f.runMicros, [t.micros, t.micros + 2_000_000, t.micros + 3_000_000, t.micros + 4_500_000])
        assertSame(try f.binary().withUnsafeBytes { try JourneyFacts(binary: $0) }, f)
    }

    /// The cohort and flag bits a definition's facts keep by the part of the context they read
    /// are those each journey's whole context gives, for every journey of every flow's sample
    /// data, and for the same journeys with unread answers, flags set in another order and
    /// flags turned over.
    func testCohortAndFlagBitsKeptByContextAreEachJourneysOwn() throws {
        var checked = 0
        for flow in ["glp1", "baby-basics", "screentime-rewards", "shieldai", "trendy"] {
            let definition = try FlowCatalog().flow(flow)
            let store = try ingest([repositoryRoot.appendingPathComponent("sample-data/\(flow)").path], into: temporaryStorePath())
            let journeys = try ProjectionStore.journeys(flow: flow, definition: definition, store: store)
            XCTAssertGreaterThan(journeys.count, 100, flow)
            let prepared = JourneyFacts.Prepared(definition)
            let cohorts = definition.cohorts.map { try? Condition(parsing: $0.where) }
            var index: [String: Int] = [:]
            for (k, s) in JourneyFacts.slots(definition).enumerated() { index[s] = k }
            var variants: [Journey] = []
            for j in journeys {
                variants.append(j)
                var noisy = j
                noisy.values["answerNoConditionReads"] = .number("\(variants.count)")
                var flags: [String: JSONValue] = [:]
                flags.reserveCapacity(32)
                for (k, v) in j.flags.sorted(by: { $0.key > $1.key }) { flags[k] = v }
                noisy.flags = KeyedValues(flags)
                variants.append(noisy)
                var turned = j
                for (k, v) in j.flags { turned.flags[k] = .bool(v.boolValue != true) }
                variants.append(turned)
            }
            var cohortsSeen = Set<UInt64>()
            for j in variants {
                let facts = JourneyFacts(j, definition: definition, slots: index, prepared: prepared)
                let ctx = j.conditionContext(flagDefaults: definition.flagDefaults)
                var expected: UInt64 = 0
                for (i, c) in cohorts.enumerated() where c?.evaluate(ctx) == true { expected |= 1 << UInt64(i) }
                var on: UInt64 = 0
                for (i, f) in definition.flags.enumerated() where ctx.isFlagOn(f.id) { on |= 1 << UInt64(i) }
                XCTAssertEqual(facts.cohorts, expected, "\(flow) \(j.userID)")
                XCTAssertEqual(facts.flagsOn, on, "\(flow) \(j.userID)")
                cohortsSeen.insert(facts.cohorts)
                checked += 1
            }
            // The journeys fall into more than one set of cohorts: the bits are not all alike.
            if definition.cohorts.count > 1 { XCTAssertGreaterThan(cohortsSeen.count, 1, flow) }
        }
        XCTAssertGreaterThan(checked, 1_000)
    }
}
