import XCTest
import Foundation
import TestSupport

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let sampleData = packageRoot.appendingPathComponent("sample-data")

/// The built `funnel` binary: next to the test bundle, else .build/debug/funnel.
func funnelBinary() throws -> URL {
    let candidates = [
        Bundle(for: BinaryLocator.self).bundleURL.deletingLastPathComponent().appendingPathComponent("funnel"),
        packageRoot.appendingPathComponent(".build/debug/funnel"),
    ]
    for c in candidates where FileManager.default.isExecutableFile(atPath: c.path) { return c }
    throw XCTSkip("the funnel binary is not built (swift build)")
}

final class BinaryLocator {}

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

func tempDir() -> URL {
    Scratch.directory("funnel-cli")
}

func runFunnel(_ args: [String], stdin: URL? = nil, environment: [String: String]? = nil,
               directory: URL? = nil) throws -> RunResult {
    try runProcess(try funnelBinary(), args, stdin: stdin, environment: environment, directory: directory)
}

/// A shell command line (`funnel export | wc -l`), run by /bin/sh with the built `funnel`
/// first on PATH.
func runShell(_ command: String, environment: [String: String], directory: URL) throws -> RunResult {
    var environment = environment
    environment["PATH"] = try funnelBinary().deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
    return try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", command], environment: environment, directory: directory)
}

func runProcess(_ executable: URL, _ args: [String], stdin: URL? = nil, environment: [String: String]? = nil,
                directory: URL? = nil) throws -> RunResult {
    let p = Process()
    p.executableURL = executable
    p.arguments = args
    if let environment { p.environment = environment }
    if let directory { p.currentDirectoryURL = directory }
    let out = Pipe()
    let errURL = tempDir().appendingPathComponent("stderr")
    guard FileManager.default.createFile(atPath: errURL.path, contents: nil) else {
        throw NSError(domain: "test", code: 1, userInfo: [NSLocalizedDescriptionKey: "cannot create \(errURL.path) for the command's standard error"])
    }
    let err = try FileHandle(forWritingTo: errURL)
    p.standardOutput = out
    p.standardError = err
    if let stdin { p.standardInput = try FileHandle(forReadingFrom: stdin) }
    try p.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    try err.close()
    let errData = (try? Data(contentsOf: errURL)) ?? Data()
    return RunResult(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
}

/// Runs one of scripts/ with python3 and gives its JSON output; a failure fails the test.
func referenceJSON(_ script: String, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["python3", packageRoot.appendingPathComponent("scripts/\(script)").path] + args
    let out = Pipe()
    p.standardOutput = out
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    XCTAssertEqual(p.terminationStatus, 0, "\(script) failed", file: file, line: line)
    return try jsonObject(String(decoding: data, as: UTF8.self))
}

func jsonObject(_ text: String) throws -> [String: Any] {
    let v = try JSONSerialization.jsonObject(with: Data(text.utf8))
    guard let o = v as? [String: Any] else { throw NSError(domain: "test", code: 1, userInfo: [NSLocalizedDescriptionKey: "not an object: \(text)"]) }
    return o
}

/// Messages as written before `Format.wrapLines` cut them at 80 columns (a cut line goes on
/// indented by four spaces).
func unwrapped(_ text: String) -> String {
    text.replacingOccurrences(of: "\n    ", with: " ")
}
