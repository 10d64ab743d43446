import XCTest
import FunnelModel
@testable import Reports

/// The human inputs of the report commands: durations need a unit, wrapping never cuts.
final class InputsTests: XCTestCase {
    func testDurationsReadWithTheirUnits() throws {
        XCTAssertEqual(try Inputs.duration("3d"), 259_200)
        XCTAssertEqual(try Inputs.duration("72h"), 259_200)
        XCTAssertEqual(try Inputs.duration("3 days"), 259_200)
        XCTAssertEqual(try Inputs.duration("3days"), 259_200)
        XCTAssertEqual(try Inputs.duration("3 Days"), 259_200)
        XCTAssertEqual(try Inputs.duration("90m"), 5_400)
        XCTAssertEqual(try Inputs.duration("90 minutes"), 5_400)
        XCTAssertEqual(try Inputs.duration("1h30m"), 5_400)
        XCTAssertEqual(try Inputs.duration("1 hour 30 minutes"), 5_400)
        XCTAssertEqual(try Inputs.duration("1.5h"), 5_400)
        XCTAssertEqual(try Inputs.duration("45s"), 45)
        XCTAssertEqual(try Inputs.duration("1 week"), 604_800)
        XCTAssertEqual(try Inputs.duration("12h"), 43_200)
    }

    /// `--compare previous` is the same length just before `--since`; an explicit period may
    /// touch the report's but not overlap it.
    func testComparedPeriods() throws {
        let since = try XCTUnwrap(Timestamp.parse("2026-10-08")), until = try XCTUnwrap(Timestamp.parse("2026-10-15"))
        let previous = try Inputs.comparedPeriod("previous", since: since, until: until)
        XCTAssertEqual(previous.since, Timestamp.parse("2026-10-01"))
        XCTAssertEqual(previous.until, since)
        let after = try Inputs.comparedPeriod("2026-10-15..2026-10-16T12:00:00Z", since: since, until: until)
        XCTAssertEqual(after.until, Timestamp.parse("2026-10-16T12:00:00Z"))
        XCTAssertThrowsError(try Inputs.comparedPeriod("2026-10-14..2026-10-20", since: since, until: until)) { error in
            XCTAssertTrue("\(error)".contains("overlaps the report's period"), "\(error)")
        }
        XCTAssertThrowsError(try Inputs.comparedPeriod("previous", since: nil, until: until)) { error in
            XCTAssertTrue("\(error)".hasPrefix("--compare previous needs --since:"), "\(error)")
        }
    }

    func testABareNumberIsAnErrorNamingTheUnits() {
        for text in ["3", "3.5", " 86400 "] {
            XCTAssertThrowsError(try Inputs.duration(text)) { error in
                let message = String(describing: error)
                XCTAssertTrue(message.hasPrefix("--idle \"\(text)\": a duration needs a unit; units: s, m, h, d, w"), message)
                XCTAssertTrue(message.contains("3d, 72h, 90m"), message)
            }
        }
        XCTAssertThrowsError(try Inputs.duration("3", option: "--at")) { error in
            XCTAssertTrue(String(describing: error).hasPrefix("--at \"3\": a duration needs a unit"))
        }
    }

    func testMalformedDurationsAreErrors() {
        for text in ["", "d", "3 fortnights", "3d4", "h3", "3-d", "three days"] {
            XCTAssertThrowsError(try Inputs.duration(text), text) { error in
                XCTAssertTrue(String(describing: error).contains("is not a duration; units: s, m, h, d, w"), "\(text): \(error)")
            }
        }
    }

    func testWrapKeepsEveryWordWhole() {
        let reason = "line 12: field \"ts\" is not an RFC 3339 time: \"2026-13-45T99:00:00Z\" (month 13 does not exist)"
        let lines = Format.wrap(reason, width: 40, indent: "    ", indentFirst: true)
        XCTAssertEqual(lines, [
            "    line 12: field \"ts\" is not an RFC",
            "    3339 time: \"2026-13-45T99:00:00Z\"",
            "    (month 13 does not exist)",
        ])
        XCTAssertTrue(lines.allSatisfy { $0.count <= 40 })
        // A word longer than the width stands alone, uncut.
        XCTAssertEqual(Format.wrap("see /a/very/long/path/that/does/not/fit/anywhere.ndjson.gz now", width: 20, indent: ""),
                       ["see", "/a/very/long/path/that/does/not/fit/anywhere.ndjson.gz", "now"])
        XCTAssertEqual(Format.wrap("", width: 20), [""])
        // wrapped (the replay's and report's wrapper) keeps a long value whole too, and the
        // spaces that align columns.
        let path = "/tmp/" + String(repeating: "x", count: 90) + ".ndjson"
        XCTAssertEqual(Format.wrapped("copy in \(path) line 3", indent: 2),
                       "  copy in\n    \(path)\n    line 3\n")
        XCTAssertEqual(Format.wrapped("✓ signIn    reached", indent: 2), "  ✓ signIn    reached\n")
    }
}
