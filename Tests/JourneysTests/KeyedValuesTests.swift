import XCTest
import Foundation
import FunnelModel
@testable import Journeys

/// A journey's answers held by their keys' codes read, compare, hash, encode and store as the
/// same answers held by name.
final class KeyedValuesTests: XCTestCase {
    /// Names with three collected keys ("weightKg", "goal", "tags"); "goal" is also a step.
    private let names = JourneyNames(names: ["welcome", "goal", "done", "weightKg", "goal", "lose", "tags", "newPaywall",
                                             "beta"],
                                     answerKeys: ["weightKg", "goal", "tags"], flagKeys: ["newPaywall", "beta"])

    func testKeysAreCodedInTextOrderAndWrittenByTheirFirstName() {
        let keys = names.answerKeys
        XCTAssertEqual(keys.keys, ["goal", "tags", "weightKg"])
        XCTAssertEqual(keys.codes, ["goal": 0, "tags": 1, "weightKg": 2])
        XCTAssertEqual(keys.nameIndexes, [1, 6, 3])
        XCTAssertEqual(keys.codeOfName, [-1, 0, -1, 2, -1, -1, 1, -1, -1])
        XCTAssertEqual(names.flagKeys.keys, ["beta", "newPaywall"])
        XCTAssertEqual(names.flagKeys.nameIndexes, [8, 7])
        XCTAssertTrue(JourneyNames(names: ["a"]).answerKeys === DefinedKeys.none)
    }

    func testCodedAndNamedKeysReadAsOneDictionary() {
        var v = KeyedValues(keys: names.answerKeys)
        XCTAssertTrue(v.isEmpty)
        v["goal"] = .string("lose")
        v["extra"] = .number("1")
        v["weightKg"] = .number("80.5")
        v["goal"] = .string("keep")
        XCTAssertEqual(v.count, 3)
        XCTAssertEqual(v["goal"], .string("keep"))
        XCTAssertEqual(v["extra"], .number("1"))
        XCTAssertNil(v["tags"])
        XCTAssertFalse(v.allCoded)
        v["extra"] = nil
        v["weightKg"] = nil
        v["tags"] = nil
        XCTAssertEqual(v.count, 1)
        XCTAssertTrue(v.allCoded)
        XCTAssertEqual(v.dictionary, ["goal": .string("keep")])
        // Pairs in code order, then by name.
        v["zeta"] = .bool(true)
        v["weightKg"] = .number("70")
        XCTAssertEqual(Array(v.map(\.key).prefix(2)), ["goal", "weightKg"])
        XCTAssertEqual(Set(v.map(\.key)), ["goal", "weightKg", "zeta"])
    }

    func testEqualityHashAndJSONDoNotDependOnHowKeysAreHeld() throws {
        let dictionary: [String: JSONValue] = ["goal": .string("lose"), "weightKg": .number("80.5"), "note": .string("x")]
        var coded = KeyedValues(keys: names.answerKeys)
        for (k, v) in dictionary { coded[k] = v }
        let named = KeyedValues(dictionary)
        XCTAssertEqual(coded, named)
        XCTAssertEqual(coded.hashValue, named.hashValue)
        XCTAssertEqual(coded.coded(by: names.answerKeys), named.coded(by: names.answerKeys))
        var other = named
        other["goal"] = .string("keep")
        XCTAssertNotEqual(coded, other)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        XCTAssertEqual(try encoder.encode(coded), try encoder.encode(dictionary))
        XCTAssertEqual(try JSONDecoder().decode(KeyedValues.self, from: try encoder.encode(coded)), coded)
    }

    /// The stored bytes of a journey whose answers are held by code are those of the same
    /// journey with its answers held by name (sorted and looked up), and decode to it.
    func testStoredBytesAreTheSameHeldByCodeOrByName() throws {
        let answers: [[String: JSONValue]] = [
            [:],
            ["goal": .string("lose")],
            ["weightKg": .number("116.50"), "goal": .string("lose"), "tags": .array([.bool(true), .null])],
            ["goal": .string("lose"), "unlisted": .string("x")],
        ]
        for dictionary in answers {
            var journey = Self.journey
            journey.values = KeyedValues(dictionary)
            let byName = journey.binary(resume: nil, names: names, codes: nil)
            journey.values = KeyedValues(dictionary).coded(by: names.answerKeys)
            XCTAssertEqual(journey.values.allCoded, dictionary["unlisted"] == nil)
            XCTAssertEqual(journey.binary(resume: nil, names: names, codes: nil), byName)
            let decoded = try Journey(binary: byName, names: names)
            XCTAssertEqual(decoded, journey)
            XCTAssertEqual(decoded.values.dictionary, dictionary)
            XCTAssertTrue(decoded.values.keys === names.answerKeys)
            // Other names: every key by its name, the same journey read back.
            XCTAssertEqual(try Journey(binary: journey.binary(names: .none), names: .none), journey)
        }
    }

    /// The same for flags: those the definition declares by code, any other by name.
    func testStoredFlagsAreTheSameHeldByCodeOrByName() throws {
        for dictionary: [String: JSONValue] in [["newPaywall": .bool(true), "beta": .bool(false)], ["beta": .bool(true), "rogue": .null]] {
            var journey = Self.journey
            journey.flags = KeyedValues(dictionary)
            let byName = journey.binary(resume: nil, names: names, codes: nil)
            journey.flags = KeyedValues(dictionary).coded(by: names.flagKeys)
            XCTAssertEqual(journey.binary(resume: nil, names: names, codes: nil), byName)
            XCTAssertEqual(try Journey(binary: byName, names: names), journey)
        }
    }

    private static let journey = Journey(
        userID: "u-1", flow: "mini", startedAt: nil, startStep: nil, completedAt: nil,
        firstEventAt: Timestamp(micros: 1_790_000_000_000_000, offsetSeconds: 0),
        lastEventAt: Timestamp(micros: 1_790_000_100_000_000, offsetSeconds: 0), currentStep: nil, lane: nil,
        laneReason: "", values: [:], flags: [:], appVersion: nil, platform: nil, visits: [], path: [], events: 2,
        unplanned: 0, backNavigations: 0, signInFailures: 0, deviations: [])
}
