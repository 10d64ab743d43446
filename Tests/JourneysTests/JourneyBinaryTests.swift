import XCTest
import TestSupport
import Foundation
import FunnelModel
import EventStore
@testable import Projections
@testable import Journeys

/// The stored journey bytes: what this version writes round-trips, and rows an older
/// version wrote still decode to the same journey.
final class JourneyBinaryTests: XCTestCase {
    /// A journey with every field set, odd values included: a step the flow does not have,
    /// timestamps in other offsets, a seconds value that is not whole micros.
    static let sample = Journey(
        userID: "u-000042", flow: "mini",
        startedAt: Timestamp(micros: 1_790_000_000_123_456, offsetSeconds: 7200), startStep: "welcome",
        completedAt: Timestamp(micros: 1_790_000_900_000_000, offsetSeconds: 7200),
        firstEventAt: Timestamp(micros: 1_790_000_000_000_001, offsetSeconds: 7200),
        lastEventAt: Timestamp(micros: 1_790_000_900_000_000, offsetSeconds: -18000),
        currentStep: "done", lane: "glp1", laneReason: "journeyStatus = already_on_glp1",
        values: ["weightKg": .number("116.50"), "goal": .string("lose"), "tags": .array([.bool(true), .null]),
                 "nested": .object(["a": .number("1")])],
        flags: ["newPaywall": .bool(true), "trackingStyleQuestion": .bool(false)],
        appVersion: "3.2.1", platform: "ios",
        visits: [
            .init(step: "welcome", firstViewedAt: Timestamp(micros: 1_790_000_000_000_001, offsetSeconds: 7200), views: 1,
                  secondsOnStep: 12.5),
            .init(step: "somewhereElse", firstViewedAt: Timestamp(micros: 1_790_000_012_500_001, offsetSeconds: 7200),
                  views: 3, secondsOnStep: 0.1 + 0.2),
            .init(step: "signIn", firstViewedAt: Timestamp(micros: 1_789_999_999_000_000, offsetSeconds: -18000), views: 2,
                  secondsOnStep: 61.000001),
            .init(step: "done", firstViewedAt: Timestamp(micros: 1_790_000_900_000_000, offsetSeconds: -18000), views: 1,
                  secondsOnStep: nil),
        ],
        path: [
            .init(step: "welcome", status: .shown, reason: nil, reached: true, eligible: true),
            .init(step: "signIn", status: .shown, reason: nil, reached: true, eligible: true),
            .init(step: "paywall", status: .skipped, reason: "flag newPaywall off", reached: false, eligible: false),
            .init(step: "goal", status: .undetermined, reason: "weightGoal = maintain", reached: false, eligible: true),
            .init(step: "done", status: .beforeStart, reason: nil, reached: true, eligible: false),
        ],
        events: 9, unplanned: 1, backNavigations: 2, signInFailures: 1,
        deviations: ["somewhereElse viewed without welcome", "unknown event onboarding.x"])

    static let sampleResume = JourneyFold.Resume(
        currentStepSince: Timestamp(micros: 1_790_000_900_000_000, offsetSeconds: -18000),
        deviations: ["somewhereElse viewed without welcome"])

    /// `sample` with `sampleResume` as version 1 wrote it (every step name in full).
    static let version1Hex = [
        "0108752d303030303432046d696e69018089bea2dbffad06c0700877656c636f6d650180a4d6fce1ffad06c0708280af",
        "a2dbffad06c07080a4d6fce1ffad069f990205646f6e6505676c70311f6a6f75726e6579537461747573203d20616c72",
        "656164795f6f6e5f676c70310404676f616c04046c6f7365066e65737465640601016103013104746167730502020008",
        "7765696768744b6703063131362e3530020a6e657750617977616c6c0215747261636b696e675374796c655175657374",
        "696f6e0106332e322e3104696f73040777656c636f6d658280afa2dbffad06c070010100000000000029400d736f6d65",
        "7768657265456c7365c2f0a4aedbffad06c0700301343333333333d33f067369676e496e80f7b4a1dbffad069f990202",
        "01d07b630800804e4004646f6e6580a4d6fce1ffad069f99020100050777656c636f6d650c00067369676e496e0c0007",
        "70617977616c6c0114666c6167206e657750617977616c6c206f666604676f616c0a16776569676874476f616c203d20",
        "6d61696e7461696e04646f6e650700090102010224736f6d657768657265456c73652076696577656420776974686f75",
        "742077656c636f6d651a756e6b6e6f776e206576656e74206f6e626f617264696e672e78010180a4d6fce1ffad069f99",
        "020124736f6d657768657265456c73652076696577656420776974686f75742077656c636f6d65",
    ].joined()

    static func bytes(hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            out.append(UInt8(hex[i..<j], radix: 16) ?? 0)
            i = j
        }
        return out
    }

    /// Names of the sample's flow: steps ("somewhereElse" is not one of them), collected keys
    /// and values ("goal" twice, "nested" and "tags" not), flags and lanes.
    static let names = JourneyNames(names: ["welcome", "signIn", "paywall", "goal", "done", "unvisited",
                                            "weightKg", "goal", "lose", "maintain", "trackingStyleQuestion",
                                            "newPaywall", "journeyStatus", "glp1", "explorers"])

    func testVersion1RowsStillDecode() throws {
        let bytes = Self.bytes(hex: Self.version1Hex)
        XCTAssertEqual(bytes.first, 1)
        for names in [JourneyNames.none, Self.names] {
            let (journey, resume) = try bytes.withUnsafeBytes { try Journey.decode(binary: $0, names: names) }
            XCTAssertEqual(journey, Self.sample)
            XCTAssertEqual(resume, Self.sampleResume)
            XCTAssertEqual(try Journey(binary: bytes, names: names), Self.sample)
        }
        // Rows of both versions through one decoding cache (as a report reads a store that
        // has both): each decodes to its own journey.
        let cache = JourneyDecodingCache()
        var other = Self.sample
        other.flags = ["trackingStyleQuestion": .bool(true)]
        let v2 = other.binary(names: Self.names)
        for _ in 0..<2 {
            XCTAssertEqual(try bytes.withUnsafeBytes { try Journey(binary: $0, cache: cache, names: Self.names) }, Self.sample)
            XCTAssertEqual(try v2.withUnsafeBytes { try Journey(binary: $0, cache: cache, names: Self.names) }, other)
        }
    }

    func testVersion7RoundTripsWithAndWithoutTheDefinitionsNames() throws {
        for names in [JourneyNames.none, Self.names] {
            let bytes = Self.sample.binary(resume: Self.sampleResume, names: names)
            XCTAssertEqual(bytes.first, 7)
            let (journey, resume) = try bytes.withUnsafeBytes { try Journey.decode(binary: $0, names: names) }
            XCTAssertEqual(journey, Self.sample)
            XCTAssertEqual(resume, Self.sampleResume)
            // Bit for bit: 0.1 + 0.2 is not whole microseconds and keeps its double.
            XCTAssertEqual(journey.visits.map { $0.secondsOnStep?.bitPattern },
                           Self.sample.visits.map { $0.secondsOnStep?.bitPattern })
            let cached = try bytes.withUnsafeBytes { try Journey(binary: $0, cache: JourneyDecodingCache(), names: names) }
            XCTAssertEqual(cached, Self.sample)
            // Without resume state.
            let plain = Self.sample.binary(names: names)
            XCTAssertEqual(try Journey(binary: plain, names: names), Self.sample)
            // Version 6 is version 7 without the silences, the silence since the latest view
            // and the last seq, version 5 is version 6 without the view runs, version 4 is
            // version 5 without the last seq on the current step, version 3 is version 4
            // without the prompt outcomes, version 2 is version 3 without the drift times
            // (here: none of any, one byte each).
            XCTAssertEqual(Array(plain.suffix(7)), [0, 0, 0, 0, 0, 0, 0])
            for (version, dropped) in [(6, 3), (5, 4), (4, 5), (3, 6), (2, 7)] {
                let older = [UInt8(version)] + plain.dropFirst().dropLast(dropped)
                XCTAssertEqual(try Journey(binary: Array(older), names: names), Self.sample, "version \(version)")
            }
            // The view runs, a step the flow lacks and a time in another offset included;
            // a version 5 row has none.
            var viewed = Self.sample
            viewed.viewRuns = [.init(step: "welcome", at: Self.sample.firstEventAt),
                               .init(step: "somewhereElse", at: Timestamp(micros: 1_790_000_012_500_001, offsetSeconds: 7200)),
                               .init(step: "welcome", at: Timestamp(micros: 1_790_000_013_000_000, offsetSeconds: -18000)),
                               .init(step: "done", at: Timestamp(micros: 1_790_000_900_000_000, offsetSeconds: -18000))]
            let (runsBack, _) = try viewed.binary(resume: Self.sampleResume, names: names)
                .withUnsafeBytes { try Journey.decode(binary: $0, names: names) }
            XCTAssertEqual(runsBack, viewed)
            XCTAssertEqual(runsBack.viewRuns.map(\.at.offsetSeconds), [7200, 7200, -18000, -18000])
            // The silences before views, what a resumed fold carries, the last seq.
            var silent = viewed
            silent.silences = [.init(run: 2, startsRun: true, micros: 86_400_000_001), .init(run: 2, startsRun: false, micros: 600_000_001)]
            silent.silenceSinceView = 3_600_000_000
            silent.lastSeq = 0
            let (silentBack, _) = try silent.binary(resume: Self.sampleResume, names: names)
                .withUnsafeBytes { try Journey.decode(binary: $0, names: names) }
            XCTAssertEqual(silentBack, silent)
            // A silence of a run the journey does not have is refused.
            var wrong = silent
            wrong.silences = [.init(run: 4, startsRun: false, micros: 600_000_001)]
            XCTAssertThrowsError(try Journey(binary: wrong.binary(names: names), names: names))
            // The seq of the last event on the current step, past one varint byte.
            var placed = Self.sample
            placed.lastSeqOnCurrentStep = 1_523_442
            let (seqBack, _) = try placed.binary(resume: Self.sampleResume, names: names)
                .withUnsafeBytes { try Journey.decode(binary: $0, names: names) }
            XCTAssertEqual(seqBack.lastSeqOnCurrentStep, 1_523_442)
            XCTAssertEqual(seqBack, placed)
            // The prompts' outcomes per step, a step the flow lacks included.
            var prompted = Self.sample
            prompted.promptOutcomes = ["signIn": ["sign_in_failed reason=network", "sign_in_failed reason=(none)"],
                                       "somewhereElse": ["permission_result granted=false"]]
            let (outcomes, _) = try prompted.binary(resume: Self.sampleResume, names: names)
                .withUnsafeBytes { try Journey.decode(binary: $0, names: names) }
            XCTAssertEqual(outcomes, prompted)
            // What the journey showed that its definition does not know keeps its times.
            var drifted = Self.sample
            drifted.driftSeen = [DriftKey.value("journeyStatus", "signup"): Self.sample.firstEventAt.adding(seconds: 12.5),
                                 DriftKey.flag("newPaywall"): Self.sample.firstEventAt]
            let (back, _) = try drifted.binary(resume: Self.sampleResume, names: names)
                .withUnsafeBytes { try Journey.decode(binary: $0, names: names) }
            XCTAssertEqual(back, drifted)
            XCTAssertNotEqual(back, Self.sample)
        }
    }

    func testVersion2WritesTheFlowsNamesAsIndexes() throws {
        let v1 = Self.bytes(hex: Self.version1Hex)
        let v2 = Self.sample.binary(resume: Self.sampleResume, names: Self.names)
        let text = String(decoding: v2, as: UTF8.self)
        func count(_ s: String) -> Int { text.components(separatedBy: s).count - 1 }
        // Steps of the flow appear nowhere by name; the one it lacks is written in full
        // (in its visit and in the deviations).
        XCTAssertEqual(count("welcome"), 2, "only in the two deviations")
        XCTAssertFalse(text.contains("signIn"))
        XCTAssertFalse(text.contains("paywall"))
        XCTAssertFalse(text.contains("done"))
        XCTAssertEqual(count("somewhereElse"), 3)
        // Keys, values, flags and the lane the flow names; the others in full.
        XCTAssertFalse(text.contains("weightKg"))
        XCTAssertFalse(text.contains("lose"))
        XCTAssertFalse(text.contains("trackingStyleQuestion"))
        XCTAssertEqual(count("glp1"), 1, "only in the lane reason")
        XCTAssertEqual(count("newPaywall"), 1, "only in the path reason")
        XCTAssertTrue(text.contains("nested") && text.contains("tags") && text.contains("116.50"))
        // A path reason met twice is written once.
        XCTAssertEqual(count("flag newPaywall off"), 1)
        XCTAssertLessThan(v2.count, v1.count * 75 / 100, "v1 \(v1.count) bytes, v2 \(v2.count)")
    }

    /// An object whose keys the definition all names is written in the keys' text order, as
    /// one with any other key is: the names' ranks stand in for comparing the text. Names
    /// listed out of text order, a repeated name, non-ASCII and case differences included.
    func testObjectKeysKeepTheirTextOrderWhenWrittenByRank() throws {
        let names = JourneyNames(names: ["zeta", "Beta", "alpha", "é", "e", "alpha", "b", "a b", "a"])
        let value: JSONValue = .string("x")
        let allNamed = ["zeta", "Beta", "alpha", "é", "e", "b", "a b", "a"]
        for keys in [allNamed, ["zeta", "alpha"], ["alpha"], [], allNamed + ["unnamed"], ["é", "other", "a"]] {
            let object = Dictionary(uniqueKeysWithValues: keys.map { ($0, value) })
            var w = BinaryWriter()
            w.names = names
            w.object(object)
            let written = w.finish()
            // The same pairs written one by one in the keys' text order.
            var expected = BinaryWriter()
            expected.names = names
            expected.uint(UInt64(object.count))
            for key in keys.sorted() {
                expected.name(key)
                expected.value(value)
            }
            let inTextOrder = expected.finish()
            XCTAssertEqual(written, inTextOrder, "keys \(keys.sorted())")
            XCTAssertEqual(try written.withUnsafeBytes { b -> [String: JSONValue] in
                var r = BinaryReader(b)
                r.names = names
                r.namesAsIndexes = true
                return try r.object()
            }, object)
        }
    }

    /// A tally (events, views) past `Int.max`, in bytes the writer never makes, throws
    /// instead of trapping (found by the journey fuzz target: fuzz/regressions/journey/).
    func testATallyBeyondIntThrows() throws {
        let intMax: [UInt8] = Array(repeating: 0xFF, count: 8) + [0x7F]
        let uint64Max: [UInt8] = Array(repeating: 0xFF, count: 9) + [0x01]
        var manyEvents = Self.sample
        manyEvents.events = Int.max
        var manyViews = Self.sample
        manyViews.visits[1].views = Int.max
        for journey in [manyEvents, manyViews] {
            for names in [JourneyNames.none, Self.names] {
                let bytes = journey.binary(names: names)
                XCTAssertEqual(try Journey(binary: bytes, names: names), journey)
                let at = try XCTUnwrap(Self.range(of: intMax, in: bytes))
                XCTAssertNil(Self.range(of: intMax, in: Array(bytes[at.upperBound...])), "the tally's bytes once")
                let bad = Array(bytes[..<at.lowerBound]) + uint64Max + Array(bytes[at.upperBound...])
                XCTAssertThrowsError(try Journey(binary: bad, names: names)) { error in
                    XCTAssertEqual("\(error)".contains("tally 18446744073709551615 beyond Int"), true, "\(error)")
                }
                XCTAssertThrowsError(try bad.withUnsafeBytes { try Journey.decode(binary: $0, names: names) })
            }
        }
    }

    static func range(of needle: [UInt8], in bytes: [UInt8]) -> Range<Int>? {
        guard bytes.count >= needle.count else { return nil }
        for i in 0...(bytes.count - needle.count) where bytes[i..<(i + needle.count)].elementsEqual(needle) {
            return i..<(i + needle.count)
        }
        return nil
    }

    func testVersion2NeedsTheNamesItWasWrittenWith() {
        let bytes = Self.sample.binary(names: Self.names)
        XCTAssertThrowsError(try Journey(binary: bytes, names: .none)) { error in
            XCTAssertTrue("\(error)".contains("not among the definition's 0"), "\(error)")
        }
        XCTAssertThrowsError(try Journey(binary: Array(bytes.dropLast(3)), names: Self.names))
    }
}

/// Journey rows in a store: rows an older version wrote are read as they were, next to rows
/// this version writes.
final class JourneyRowVersionTests: XCTestCase {
    func testAStoreWithVersion1RowsReadsThemAsTheyWere() throws {
        let store = try EventStore(path: temporaryStorePath(), migrations: ProjectionStore.migrations)
        var current = JourneyBinaryTests.sample
        current.userID = "u-000043"
        let fingerprint = JourneyFold.fingerprint(miniFlow)
        try store.writer.write { db in
            let insert = """
                INSERT INTO journeys (flow, user_id, started_us, completed_us, last_us, current_step, lane, definition, data)
                VALUES ('mini', ?, NULL, NULL, 0, NULL, NULL, ?, ?)
                """
            try db.execute(sql: insert, arguments: ["u-000042", fingerprint, Data(JourneyBinaryTests.bytes(hex: JourneyBinaryTests.version1Hex))])
            try db.execute(sql: insert, arguments: ["u-000043", fingerprint,
                                                    Data(current.binary(resume: JourneyBinaryTests.sampleResume, names: JourneyNames(miniFlow)))])
        }
        let journeys = try ProjectionStore.journeys(flow: "mini", definition: miniFlow, store: store)
        XCTAssertEqual(journeys, [JourneyBinaryTests.sample, current])
    }
}
