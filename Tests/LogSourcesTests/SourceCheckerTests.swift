import Foundation
import FunnelModel
import TestSupport
import XCTest
@testable import LogSources

final class SourceCheckerTests: XCTestCase {
    func check(_ text: String) -> [SourceIssue] { SourceChecker.read(Array(text.utf8)).issues }

    func testEveryPresetIsSoundAndReadsBackFromItsJSON() {
        XCTAssertEqual(SourcePresets.all.map(\.name), ["amplitude", "mixpanel", "posthog", "rudderstack", "segment"])
        XCTAssertEqual(SourcePresets.all.count, SourcePresets.files.count, "every generated text reads")
        for file in SourcePresets.files { XCTAssertEqual(check(file.json), [], file.name) }
        for source in SourcePresets.all {
            XCTAssertEqual(SourceChecker.read(Array(source.jsonValue.jsonText.utf8)).definition, source, source.name)
        }
    }

    /// The presets hold the issue's table: the first path of each list is the id that dedupes.
    func testPresetsFollowTheIssuesTable() {
        func paths(_ name: String, _ field: SourceDefinition.Field) -> [String] { preset(name).paths(field).map(\.description) }
        XCTAssertEqual(paths("amplitude", .eventID), ["$insert_id", "uuid"])
        XCTAssertEqual(paths("amplitude", .userID), ["user_id", "device_id"])
        XCTAssertEqual(paths("segment", .userID), ["userId", "anonymousId"])
        XCTAssertEqual(paths("mixpanel", .ts), ["properties.time"])
        XCTAssertEqual(paths("segment", .appVersion), ["context.app.version"])
        XCTAssertEqual(paths("amplitude", .properties), ["event_properties"])
        XCTAssertEqual(preset("posthog").flags, .prefix(container: SourcePath(keys: ["properties"]), key: "$feature/"))
        XCTAssertEqual(preset("amplitude").flags, .prefix(container: SourcePath(keys: ["user_properties"]), key: "[Experiment] "))
        XCTAssertEqual(preset("segment").flags, .object([SourcePath(keys: ["context", "flags"])]))
        XCTAssertEqual(preset("posthog").stepView?.equals, "$screen")
        XCTAssertEqual(preset("rudderstack").eventTypes?.carryEvent, ["track"])
        XCTAssertEqual(preset("amplitude").timeFormat, .sqlUTC)
        XCTAssertEqual(preset("mixpanel").timeFormat, .unix)
        XCTAssertEqual(preset("segment").events["Onboarding Started"], "onboarding.started")
    }

    func testGeneratedSourceIsNotStale() throws {
        XCTAssertEqual(try staleGenerated(SourcePresets.files, match: packageRoot.appendingPathComponent("schemas/sources")), [],
                       "run scripts/gen-builtin-flows")
    }

    /// A file broken in many ways: every fault is listed with its JSON path in one pass.
    func testABrokenFileListsEveryErrorWithItsPath() {
        let issues = check("""
        {
          "name": "", "time_format": "rfc822", "colour": "red",
          "fields": {
            "event_id": [], "user_id": ["userId", 3], "ts": ["a..b"], "flow": "properties.flow",
            "context.flags": {"prefix": "nodot"}, "context.os": ["x"]
          },
          "step_view": {"path": "type", "step": ["name"]},
          "event_types": {"path": "type", "carry_event": []},
          "events": {"Started": "onboarding.start", "onboarding.completed": "onboarding.completed", "Done": 1},
          "export_files": {"per": "week", "extension": ""}
        }
        """)
        let found = issues.map { "\($0.kind.rawValue) \($0.path)" }
        XCTAssertEqual(Set(found), [
            "shape $.colour", "shape $.name", "shape $.time_format",
            "shape $.fields.event", "shape $.fields.context.os", "shape $.fields.flow", "shape $.fields.event_id",
            "shape $.fields.user_id[1]", "bad-path $.fields.ts[0]", "bad-path $.fields.context.flags.prefix",
            "shape $.step_view.equals", "shape $.event_types.carry_event",
            "bad-event-name $.events[\"Started\"]", "bad-event-name $.events[\"onboarding.completed\"]", "shape $.events[\"Done\"]",
            "shape $.export_files.per", "shape $.export_files.extension",
        ], issues.map(\.description).joined(separator: "\n"))
        XCTAssertEqual(found.count, Set(found).count, "each fault once")
        XCTAssertTrue(issues.contains { $0.message.contains("did you mean \"onboarding.started\"") })
        XCTAssertNil(SourceChecker.read(Array("{}".utf8)).definition)
    }

    func testSyntaxErrorsNameTheLineAndColumn() {
        XCTAssertEqual(check("{\n  \"name\": \"x\",\n  \"name\": \"y\"\n}").map(\.kind), [.syntax])
        XCTAssertEqual(check("{\n  \"name\": 'x'\n}").first?.message.hasPrefix("not JSON: line 2, column 11"), true)
    }

    func testAFileOrAPresetIsResolved() throws {
        XCTAssertEqual(try SourcePresets.resolve("mixpanel").name, "mixpanel")
        XCTAssertThrowsError(try SourcePresets.resolve("heap")) { error in
            XCTAssertTrue("\(error)".contains("no source preset \"heap\" (amplitude, mixpanel, posthog, rudderstack, segment)"), "\(error)")
        }
        let file = Scratch.directory("sources").appendingPathComponent("firebase.json")
        try Data(#"{"name":"firebase","time_format":"unix","fields":{"event_id":["event_bundle_sequence_id"],"user_id":["user_pseudo_id"],"ts":["event_timestamp"],"event":["event_name"]}}"#.utf8).write(to: file)
        XCTAssertEqual(try SourcePresets.resolve(file.path).paths(.userID), [SourcePath(keys: ["user_pseudo_id"])])
    }
}
