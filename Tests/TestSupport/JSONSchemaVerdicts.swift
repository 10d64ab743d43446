import Foundation

/// Python's jsonschema (draft 2020-12) run on inputs: what the tests that hold a schema
/// against a Swift reader compare with. Needs python3 with jsonschema (CI pip installs it).
public enum JSONSchemaVerdicts {
    /// Why a run gave no verdicts.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Checks the schema, then runs `body` with `validator` made from it and `args`, the
    /// arguments after the schema; `body` prints one `1` (valid) or `0` a verdict. Throws
    /// `Failure` when python3 has no jsonschema or the script fails.
    public static func run(schema: URL, body: String, arguments: [String], in dir: URL) throws -> [Bool] {
        let script = """
        import sys, json
        try:
            import jsonschema
        except ImportError:
            print("NO_JSONSCHEMA"); sys.exit(3)
        schema = json.load(open(sys.argv[1]))
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema)
        args = sys.argv[2:]

        """ + body
        let scriptURL = dir.appendingPathComponent("check.py")
        try script.write(to: scriptURL, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", scriptURL.path, schema.path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if output.hasPrefix("NO_JSONSCHEMA") {
            throw Failure(description: "python3 cannot import jsonschema: run `pip install jsonschema` (CI does)")
        }
        guard process.terminationStatus == 0 else {
            throw Failure(description: "python3 exited \(process.terminationStatus) checking \(schema.path): \(output)")
        }
        return output.split(separator: "\n").map { $0 == "1" }
    }
}
