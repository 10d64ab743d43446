import Foundation
import FunnelModel
import TestSupport
import XCTest
@testable import LogSources

/// schemas/source.schema.json accepts the presets and rejects what the checker rejects.
/// (python's jsonschema: `JSONSchemaVerdicts`).
final class SourceSchemaTests: XCTestCase {
    func testSchemaAndCheckerAgreeOnThePresetsAndBrokenDefinitions() throws {
        let dir = Scratch.directory("source-schema")
        var files: [(name: String, text: String)] = SourcePresets.files.map { ($0.name, $0.json) }
        let good = SourcePresets.files[0].json
        let broken = [
            good.replacingOccurrences(of: #""time_format": "sql_utc""#, with: #""time_format": "epoch""#),
            good.replacingOccurrences(of: #""event_time""#, with: #""event..time""#),
            good.replacingOccurrences(of: #""onboarding.started""#, with: #""onboarding.start""#),
            good.replacingOccurrences(of: #""Onboarding Started""#, with: #""sign_in_started""#),
            good.replacingOccurrences(of: #""per": "hour""#, with: #""per": "week""#),
            good.replacingOccurrences(of: #""user_properties.[Experiment] ""#, with: #""[Experiment] ""#),
            good.replacingOccurrences(of: #""name": "amplitude","#, with: #""name": "amplitude", "colour": 1,"#),
            good.replacingOccurrences(of: #""ts": ["event_time"],"#, with: ""),
        ]
        for (i, text) in broken.enumerated() {
            XCTAssertNotEqual(text, good, "broken \(i) changes the file")
            files.append(("broken-\(i).json", text))
        }
        var paths: [String] = []
        for file in files {
            let url = dir.appendingPathComponent(file.name)
            try Data(file.text.utf8).write(to: url)
            paths.append(url.path)
        }
        let body = "for path in args:\n    print(\"1\" if validator.is_valid(json.load(open(path))) else \"0\")\n"
        let verdicts = try JSONSchemaVerdicts.run(schema: packageRoot.appendingPathComponent("schemas/source.schema.json"),
                                                        body: body, arguments: paths, in: dir)
        XCTAssertEqual(verdicts.count, files.count)
        for (i, file) in files.enumerated() where i < verdicts.count {
            let swift = SourceChecker.read(Array(file.text.utf8)).issues.isEmpty
            XCTAssertEqual(swift, verdicts[i], "\(file.name): the checker says \(swift), the schema \(verdicts[i])")
            XCTAssertEqual(verdicts[i], !file.name.hasPrefix("broken"), file.name)
        }
    }
}
