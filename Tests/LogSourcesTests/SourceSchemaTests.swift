import Foundation
import FunnelModel
import TestSupport
import XCTest
@testable import LogSources

/// schemas/source.schema.json accepts the presets and rejects what the checker rejects.
/// Needs python3 with jsonschema (CI pip installs it).
final class SourceSchemaTests: XCTestCase {
    static let script = #"""
import sys, json
try:
    import jsonschema
except ImportError:
    print("NO_JSONSCHEMA"); sys.exit(3)
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
for path in sys.argv[2:]:
    print("1" if validator.is_valid(json.load(open(path))) else "0")
"""#

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
        let scriptURL = dir.appendingPathComponent("check.py")
        try Self.script.write(to: scriptURL, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", scriptURL.path, packageRoot.appendingPathComponent("schemas/source.schema.json").path] + paths
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if output.hasPrefix("NO_JSONSCHEMA") {
            XCTFail("python3 cannot import jsonschema: run `pip install jsonschema` (CI does)")
            return
        }
        XCTAssertEqual(process.terminationStatus, 0, output)
        let verdicts = output.split(separator: "\n").map { $0 == "1" }
        XCTAssertEqual(verdicts.count, files.count)
        for (i, file) in files.enumerated() where i < verdicts.count {
            let swift = SourceChecker.read(Array(file.text.utf8)).issues.isEmpty
            XCTAssertEqual(swift, verdicts[i], "\(file.name): the checker says \(swift), the schema \(verdicts[i])")
            XCTAssertEqual(verdicts[i], !file.name.hasPrefix("broken"), file.name)
        }
    }
}
