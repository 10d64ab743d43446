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

    /// A read as of a time before the latest event folds journeys again from the log: a bar
    /// of them on a terminal, none when piped, and the figures a pipe gets.
    func testAReadAsOfThePastShowsProgressOnATerminalOnly() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path]).status, 0)
        let asOf = ["--as-of", "2026-10-05"]
        let reads: [[String]] = [
            ["report", "--store", store, "--flow", "glp1"] + asOf,
            ["report", "--store", store, "--flow", "glp1", "--by", "app_version", "--format", "json"] + asOf,
            ["users", "--store", store, "--flow", "glp1", "--state", "abandoned"] + asOf,
            ["explain", "--store", store, "--flow", "glp1", "--step", "signIn"] + asOf,
            ["flows", "drift", "--store", store, "--flow", "glp1"] + asOf,
        ]
        for args in reads {
            let terminal = try onTerminal(args)
            let piped = try runFunnel(args)
            XCTAssertEqual(terminal.status, piped.status, "\(args): \(terminal.stdout)")
            XCTAssertTrue(terminal.stdout.contains("\r[") && terminal.stdout.contains("journeys refolded for as-of"),
                          "\(args): \(terminal.stdout.debugDescription)")
            XCTAssertFalse(piped.stderr.contains("\r"), "\(args): \(piped.stderr.debugDescription)")
            XCTAssertFalse(piped.stdout.contains("\r"), "\(args)")
            XCTAssertFalse(piped.stdout.isEmpty, "\(args)")
            // The bar's line is blanked before the output, which the terminal shows whole after it.
            let shown = terminal.stdout.replacingOccurrences(of: "\r\n", with: "\n")
            let after = shown.components(separatedBy: "\r" + String(repeating: " ", count: 79) + "\r").dropFirst().last ?? ""
            XCTAssertTrue(after.contains(piped.stdout.prefix(60)) && !after.contains("\r["), "\(args): \(terminal.stdout.debugDescription)")
        }
        // An error met after the bar was drawn starts on a blanked line.
        let typo = try onTerminal(["report", "--store", store, "--flow", "glp1", "--where", "weightGoal=maintian"] + asOf)
        XCTAssertEqual(typo.status, 2, typo.stdout)
        XCTAssertTrue(typo.stdout.contains("\r" + String(repeating: " ", count: 79) + "\rfunnel report: --where \"weightGoal=maintian\""),
                      typo.stdout.debugDescription)
        // As of the latest event nothing is folded again: no bar.
        let latest = try onTerminal(["report", "--store", store, "--flow", "glp1"])
        XCTAssertEqual(latest.status, 0, latest.stdout)
        XCTAssertFalse(latest.stdout.contains("\r["), latest.stdout.debugDescription)
    }

    /// `funnel paths --where` reads every user's events from the log: their count on a
    /// terminal, nothing when piped. Without it, paths reads the journeys' facts: no bar.
    func testPathsShowsTheUsersReadOnATerminalOnly() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path]).status, 0)
        let fromFacts = try onTerminal(["paths", "--store", store, "--flow", "glp1"])
        XCTAssertEqual(fromFacts.status, 0, fromFacts.stdout)
        XCTAssertFalse(fromFacts.stdout.contains("\r["), fromFacts.stdout.debugDescription)
        XCTAssertTrue(fromFacts.stdout.hasPrefix("Paths · Onboarding Tonic (GLP-1) (glp1)\r\n"), fromFacts.stdout.debugDescription)
        let args = ["paths", "--store", store, "--flow", "glp1", "--where", "journeyStatus=already_on_glp1"]
        let terminal = try onTerminal(args)
        let piped = try runFunnel(args)
        XCTAssertEqual(terminal.status, 0, terminal.stdout)
        XCTAssertTrue(terminal.stdout.contains("users' events read"), terminal.stdout.debugDescription)
        XCTAssertTrue(terminal.stdout.contains("\r" + String(repeating: " ", count: 79) + "\rPaths · "), terminal.stdout.debugDescription)
        XCTAssertFalse(piped.stderr.contains("\r"), piped.stderr.debugDescription)
        XCTAssertTrue(piped.stdout.hasPrefix("Paths · Onboarding Tonic (GLP-1) (glp1) · where journeyStatus=already_on_glp1\n"), piped.stdout)
    }
}
