import XCTest
import Foundation
import TestSupport

/// Long work shows one progress bar on a terminal (standard error) and none when piped.
final class ProgressTests: XCTestCase {
    /// Runs funnel under a pseudo-terminal (util-linux `script`): what the terminal showed.
    func onTerminal(_ args: [String]) throws -> RunResult {
        let script = URL(fileURLWithPath: "/usr/bin/script")
        guard FileManager.default.isExecutableFile(atPath: script.path) else {
            throw XCTSkip("no /usr/bin/script (util-linux) to give funnel a terminal")
        }
        let command = ([try funnelBinary().path] + args).map { "'\($0)'" }.joined(separator: " ")
        return try runProcess(script, ["-qec", command, "/dev/null"])
    }

    func testRebuildExportAndSampleShowProgressOnATerminalOnly() throws {
        let dir = tempDir()
        let store = dir.appendingPathComponent("s.sqlite").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path]).status, 0)
        // Each run writes a file or folder of its own: nothing is overwritten.
        let cases: [((String) -> [String], String)] = [
            ({ _ in ["rebuild", "--store", store] }, "journeys"),
            ({ ["export", "--store", store, "--output", dir.appendingPathComponent("all-\($0).ndjson").path] }, "/15726 events"),
            ({ ["sample", "--flow", "glp1", "--users", "2500", "--out", dir.appendingPathComponent("logs-\($0)").path] }, "/2500 users simulated"),
        ]
        for (args, shown) in cases {
            let terminal = try onTerminal(args("terminal"))
            XCTAssertEqual(terminal.status, 0, "\(args("terminal")): \(terminal.stdout)")
            XCTAssertTrue(terminal.stdout.contains("\r[#"), "\(args("terminal")): \(terminal.stdout.debugDescription)")
            XCTAssertTrue(terminal.stdout.contains(shown), "\(args("terminal")): \(terminal.stdout.debugDescription)")
            let piped = try runFunnel(args("piped"))
            XCTAssertEqual(piped.status, 0, "\(args("piped")): \(piped.stderr)")
            XCTAssertFalse(piped.stderr.contains("\r"), "\(args("piped")): \(piped.stderr.debugDescription)")
            XCTAssertFalse(piped.stdout.contains("\r"), "\(args("piped"))")
        }
    }
}
