import XCTest
@testable import LogFiles

/// The Swift validator and schemas/event.schema.json must agree on every sample line
/// (good and bad). Needs python3 with jsonschema (CI pip installs it).
final class SchemaAgreementTests: XCTestCase {
    static let script = #"""
import sys, json
try:
    import jsonschema
except ImportError:
    print("NO_JSONSCHEMA"); sys.exit(3)
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
def no_constants(c): raise ValueError("not JSON: " + c)
for row in open(sys.argv[2]):
    raw = bytes.fromhex(row.strip())
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=no_constants)
        print("1" if validator.is_valid(value) else "0")
    except (UnicodeDecodeError, ValueError):
        print("0")
"""#

    func testSwiftValidatorAndSchemaAgreeOnEverySampleLine() throws {
        var files = try InputSource.discover([sampleData.path]).map(\.path)
        files.removeAll { $0.contains("/bad/long-line") }   // line length is not a schema matter
        var lines: [(String, [UInt8])] = []
        for file in files {
            let (read, _, _) = readLines(file)
            for (info, bytes) in read { lines.append(("\(file):\(info.number)", bytes)) }
        }
        XCTAssertGreaterThan(lines.count, 60)
        let dir = tempDir()
        let scriptURL = dir.appendingPathComponent("check.py")
        let inputURL = dir.appendingPathComponent("lines.hex")
        try Self.script.write(to: scriptURL, atomically: true, encoding: .utf8)
        try lines.map { $0.1.map { String(format: "%02x", $0) }.joined() }.joined(separator: "\n")
            .appending("\n").write(to: inputURL, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", scriptURL.path, packageRoot.appendingPathComponent("schemas/event.schema.json").path, inputURL.path]
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
        XCTAssertEqual(verdicts.count, lines.count)
        var accepted = 0
        for (i, (name, bytes)) in lines.enumerated() where i < verdicts.count {
            let swift = (try? decode(bytes).get()) != nil
            if swift { accepted += 1 }
            XCTAssertEqual(swift, verdicts[i], "\(name): Swift says \(swift ? "valid" : "invalid"), the schema says \(verdicts[i] ? "valid" : "invalid")")
        }
        XCTAssertGreaterThan(accepted, 10)
        XCTAssertGreaterThan(lines.count - accepted, 30)
    }
}
