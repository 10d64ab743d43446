import TestSupport
import XCTest
@testable import LogFiles

/// The Swift validator and schemas/event.schema.json must agree on every sample line
/// (good and bad), as python's jsonschema reads it (`JSONSchemaVerdicts`).
final class SchemaAgreementTests: XCTestCase {
    static let body = #"""
def no_constants(c): raise ValueError("not JSON: " + c)
for row in open(args[0]):
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
        let inputURL = dir.appendingPathComponent("lines.hex")
        try lines.map { $0.1.map { String(format: "%02x", $0) }.joined() }.joined(separator: "\n")
            .appending("\n").write(to: inputURL, atomically: true, encoding: .utf8)
        let verdicts = try JSONSchemaVerdicts.run(schema: packageRoot.appendingPathComponent("schemas/event.schema.json"),
                                                        body: Self.body, arguments: [inputURL.path], in: dir)
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
