import Foundation
import XCTest
import TestSupport

/// `funnel sources` and `funnel sample --as`, run as the built binary (see BinarySupport.swift).
final class SourcesCommandTests: XCTestCase {
    var tmp = ""

    override func setUpWithError() throws {
        tmp = Scratch.directory("sourcescmd").path
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: tmp) }

    func funnel(_ args: [String]) throws -> RunResult {
        try runFunnel(args, directory: URL(fileURLWithPath: tmp))
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = (tmp as NSString).appendingPathComponent(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testListNamesEveryPresetWithinEightyColumns() throws {
        let r = try funnel(["sources"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for name in ["posthog", "segment", "rudderstack", "amplitude", "mixpanel"] {
            XCTAssertTrue(r.stdout.contains("\n\(name) (") || r.stdout.hasPrefix("\(name) ("), name)
        }
        XCTAssertTrue(r.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 }, r.stdout)
        let json = try funnel(["sources", "list", "--format", "json"])
        let sources = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(sources.compactMap { $0["name"] as? String }, ["amplitude", "mixpanel", "posthog", "rudderstack", "segment"])
        let fields = try XCTUnwrap(sources.first { $0["name"] as? String == "segment" }?["fields"] as? [String: [String]])
        XCTAssertEqual(fields["user_id"], ["userId", "anonymousId"])
    }

    func testCheckListsEveryErrorWithItsPathAndExitsOne() throws {
        _ = try write("bad.json", """
        {"name": "x", "time_format": "epoch",
         "fields": {"event_id": ["id"], "user_id": ["a..b"], "ts": ["t"]},
         "events": {"Started": "onboarding.start"}}
        """)
        let r = try funnel(["sources", "check", "bad.json"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stdout, """
        bad.json: $.time_format: unknown time format "epoch"; expected one of iso8601,
            sql_utc, unix [shape]
        bad.json: $.fields.event: missing field [shape]
        bad.json: $.fields.user_id[0]: "a..b" is not a path: keys joined by dots, none
            empty [bad-path]
        bad.json: $.events["Started"]: "onboarding.start" is not an event of the native
            contract (onboarding.…); did you mean "onboarding.started"? [bad-event-name]
        4 errors

        """)
        let json = try funnel(["sources", "check", "bad.json", "--format", "json"])
        XCTAssertEqual(json.status, 1)
        let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(o["ok"] as? Bool, false)
        XCTAssertEqual((o["issues"] as? [[String: Any]])?.compactMap { $0["path"] as? String },
                       ["$.time_format", "$.fields.event", "$.fields.user_id[0]", "$.events[\"Started\"]"])
        let ok = try funnel(["sources", "check", packageRoot.appendingPathComponent("schemas/sources/amplitude.json").path])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(ok.stdout, "ok\n")
        let missing = try funnel(["sources", "check", "nope.json"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertEqual(missing.stderr, "funnel sources check: cannot read nope.json: no such file\n")
    }

    func testSampleAsAVendorWritesItsFiles() throws {
        let out = (tmp as NSString).appendingPathComponent("amp")
        let r = try funnel(["sample", "--flow", "shieldai", "--users", "5", "--days", "1", "--as", "amplitude", "--out", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        let files = try FileManager.default.contentsOfDirectory(atPath: out)
        XCTAssertFalse(files.isEmpty)
        XCTAssertTrue(files.allSatisfy { $0.range(of: #"^events-2026-10-01-\d\d\.json\.gz$"#, options: .regularExpression) != nil }, "\(files)")
        // A second export into the same folder would write over the first: refused, the files
        // untouched (they are no logs of funnel's, so only their names tell).
        let first = (out as NSString).appendingPathComponent(files.sorted()[0])
        let before = try Data(contentsOf: URL(fileURLWithPath: first))
        let again = try funnel(["sample", "--flow", "shieldai", "--users", "5", "--days", "1", "--seed", "9", "--as", "amplitude", "--out", out])
        XCTAssertEqual(again.status, 2, again.stderr)
        XCTAssertTrue(again.stderr.contains("--out \(out) already holds \(files.count) log\(files.count == 1 ? "" : "s") (\(first)"), again.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: first)), before)
        let unknown = try funnel(["sample", "--flow", "shieldai", "--users", "5", "--as", "heap", "--out", out + "2"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("no source preset \"heap\" (amplitude, mixpanel, posthog, rudderstack, segment)"), unknown.stderr)
    }
}
