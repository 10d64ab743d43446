import XCTest
@testable import FunnelModel

/// A context cut down to what conditions read: equal for contexts that differ only in what no
/// condition reads, and apart for any difference a condition or a flag could see.
final class ConditionReadsTests: XCTestCase {
    let reads = ConditionReads(["journeyStatus", "weightGoal", "flag:newPaywall", "app_version"])

    func key(_ values: [String: JSONValue], _ flags: [String: JSONValue] = [:], app: String? = "3.2.0",
             platform: String? = "ios", day: String? = "2026-10-01") -> ConditionReads.Key {
        reads.key(values: values, flags: flags, appVersion: app, platform: platform, startDate: { day })
    }

    func testValuesNoConditionReadsShareAKey() {
        let base = key(["journeyStatus": .string("signup"), "weightGoal": .string("lose")])
        XCTAssertEqual(key(["journeyStatus": .string("signup"), "weightGoal": .string("lose"), "age": .number("41")]), base)
        // Neither the platform nor the start day is read by these conditions.
        XCTAssertEqual(key(["journeyStatus": .string("signup"), "weightGoal": .string("lose")], platform: "android",
                           day: "2026-10-09"), base)
    }

    func testEveryDifferenceAConditionOrAFlagSeesKeepsKeysApart() {
        let base = key(["journeyStatus": .string("signup")], ["newPaywall": .bool(true)])
        XCTAssertNotEqual(key(["journeyStatus": .string("already_on_glp1")], ["newPaywall": .bool(true)]), base)
        XCTAssertNotEqual(key([:], ["newPaywall": .bool(true)]), base)
        XCTAssertNotEqual(key(["journeyStatus": .number("1")], ["newPaywall": .bool(true)]), key(["journeyStatus": .string("1")], ["newPaywall": .bool(true)]))
        XCTAssertNotEqual(key(["journeyStatus": .string("signup")], ["newPaywall": .bool(false)]), base)
        // Every flag counts, read by a condition or not (a step's flag is read by its name).
        XCTAssertNotEqual(key(["journeyStatus": .string("signup")], ["newPaywall": .bool(true), "other": .bool(false)]), base)
        XCTAssertNotEqual(key(["journeyStatus": .string("signup")], ["newPaywall": .bool(true)], app: "3.10.0"), base)
    }

    func testFlagsGiveOneKeyWhateverOrderTheyWereSetIn() {
        let names = (0..<12).map { "flag\($0)" }
        var forward: [String: JSONValue] = [:]
        for (i, n) in names.enumerated() { forward[n] = .bool(i % 3 == 0) }
        var backward: [String: JSONValue] = [:]
        backward.reserveCapacity(64)
        for (i, n) in names.enumerated().reversed() { backward[n] = .bool(i % 3 == 0) }
        XCTAssertEqual(key(["weightGoal": .string("lose")], forward), key(["weightGoal": .string("lose")], backward))
        XCTAssertEqual(Set([key([:], forward), key([:], backward)]).count, 1)
        // Few flags are sorted in scratch memory, many as an array: any order, one key, and
        // each flag's value still tells keys apart.
        var rng = SystemRandomNumberGenerator()
        for count in [2, 3, 5, 16, 17, 30] {
            let names = (0..<count).map { "f\(($0 * 7919) % 1000)_\(String(repeating: "x", count: $0 % 20))" }
            var keys: Set<ConditionReads.Key> = []
            for _ in 0..<6 {
                var flags: [String: JSONValue] = [:]
                for n in names.shuffled(using: &rng) { flags[n] = .bool(n.count % 2 == 0) }
                keys.insert(key([:], flags))
            }
            XCTAssertEqual(keys.count, 1, "\(count) flags")
            var flipped: [String: JSONValue] = [:]
            for n in names { flipped[n] = .bool(n.count % 2 == 0) }
            flipped[names[count / 2]] = .bool(names[count / 2].count % 2 != 0)
            XCTAssertFalse(keys.contains(key([:], flipped)), "\(count) flags")
        }
    }

    func testNestedValuesNullAndTextBoundsKeepKeysApart() {
        XCTAssertNotEqual(key([:]), key(["journeyStatus": .null]), "a value that is null is not a value that is absent")
        // An object's pairs in any order give one key; an array's order counts.
        var a: [String: JSONValue] = [:]
        a["x"] = .number("1")
        a["y"] = .string("z")
        var b: [String: JSONValue] = [:]
        b.reserveCapacity(32)
        b["y"] = .string("z")
        b["x"] = .number("1")
        XCTAssertEqual(key(["journeyStatus": .object(a)]), key(["journeyStatus": .object(b)]))
        XCTAssertEqual(Set([key(["journeyStatus": .object(a)]), key(["journeyStatus": .object(b)])]).count, 1)
        XCTAssertNotEqual(key(["journeyStatus": .array([.bool(true), .bool(false)])]),
                          key(["journeyStatus": .array([.bool(false), .bool(true)])]))
        XCTAssertNotEqual(key(["journeyStatus": .object(a)]), key(["journeyStatus": .object(["x": .number("1")])]))
        // Each text is kept with its length: "ab" then "c" is not "a" then "bc".
        XCTAssertNotEqual(key(["journeyStatus": .string("ab"), "weightGoal": .string("c")]),
                          key(["journeyStatus": .string("a"), "weightGoal": .string("bc")]))
        XCTAssertNotEqual(key([:], ["ab": .bool(true)], app: "c"), key([:], ["a": .bool(true)], app: "bc"))
    }

    func testTheStartDayIsAskedOnlyWhenAConditionReadsIt() {
        var asked = 0
        _ = reads.key(values: [:], flags: [:], appVersion: nil, platform: nil, startDate: { asked += 1; return "2026-10-01" })
        XCTAssertEqual(asked, 0)
        let byDay = ConditionReads(["start_date"])
        let a = byDay.key(values: [:], flags: [:], appVersion: nil, platform: nil, startDate: { asked += 1; return "2026-10-01" })
        let b = byDay.key(values: [:], flags: [:], appVersion: nil, platform: nil, startDate: { "2026-10-02" })
        XCTAssertEqual(asked, 1)
        XCTAssertNotEqual(a, b)
    }
}
