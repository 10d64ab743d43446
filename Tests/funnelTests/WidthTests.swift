import Foundation
import XCTest
import TestSupport

/// Every command's `--help` and every example command of the README, run as shown on the
/// bundled sample data: each succeeds and every line it prints fits 80 columns.
final class WidthTests: XCTestCase {
    static let subcommands = ["ingest", "report", "users", "replay", "explain", "rebuild", "quarantine", "export", "flows", "sample"]
    static let flowsSubcommands = ["list", "show", "path", "check"]

    func assertFits(_ text: String, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        for l in text.split(separator: "\n", omittingEmptySubsequences: false) where l.count > 80 {
            XCTFail("\(label): \(l.count) columns: \(l)", file: file, line: line)
        }
    }

    func testEveryHelpFitsEightyColumns() throws {
        var helps: [[String]] = [["--help"], ["help"]]
        helps += Self.subcommands.map { [$0, "--help"] }
        helps += Self.flowsSubcommands.map { ["flows", $0, "--help"] }
        for args in helps {
            let r = try runFunnel(args)
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stdout.contains("USAGE:"), "\(args): \(r.stdout)")
            assertFits(r.stdout, args.joined(separator: " "))
        }
    }

    /// The bad inputs make the longest lines: partial and unreadable inputs, quarantine
    /// reasons; users' text shows whole timestamps.
    func testIngestQuarantineAndUsersFitEightyColumnsWithWholeValues() throws {
        let dir = Scratch.directory("width-bad")
        try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent("sample-data"), withDestinationURL: sampleData)
        let store = "s.sqlite"
        let ingest = try runFunnel(["ingest", "--store", store, "sample-data/bad", "sample-data/edge", "sample-data/glp1"], directory: dir)
        XCTAssertEqual(ingest.status, 2, ingest.stderr)
        assertFits(ingest.stdout, "ingest")
        let partial = ingest.stdout.components(separatedBy: "\npartial: ").dropFirst()
        XCTAssertFalse(partial.isEmpty, ingest.stdout)
        // A wrapped message continues on indented lines; joined again it is the whole message.
        for p in partial {
            let message = p.components(separatedBy: "\n").prefix { !$0.hasPrefix("partial:") && !$0.hasPrefix("unreadable:") }
            XCTAssertTrue(message.joined(separator: " ").replacingOccurrences(of: "     ", with: " ").contains("lines)"), p)
        }
        let quarantine = try runFunnel(["quarantine", "--store", store], directory: dir)
        XCTAssertEqual(quarantine.status, 0, quarantine.stderr)
        assertFits(quarantine.stdout, "quarantine")
        XCTAssertTrue(quarantine.stdout.contains("sample-data/bad/bad-timestamp.ndjson:2 (byte 247) [bad_timestamp]\n"
            + "    bad timestamp \"2026-10-03T14:22:01\" in ts: expected RFC 3339 with an offset\n    or Z\n"), quarantine.stdout)
        let users = try runFunnel(["users", "--store", store, "--flow", "glp1"], directory: dir)
        XCTAssertEqual(users.status, 0, users.stderr)
        assertFits(users.stdout, "users")
        XCTAssertTrue(users.stdout.contains("\nu-000001  completed    planPreview              2026-10-07T08:22:40.477Z\n"), users.stdout)
    }

    /// The commands of the README's shell blocks that call funnel, in order.
    func readmeCommands() throws -> [[String]] {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var commands: [[String]] = []
        var inShell = false
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inShell = line == "```sh"; continue }
            guard inShell else { continue }
            let command = line.components(separatedBy: "  #")[0].trimmingCharacters(in: .whitespaces)
            var words = command.split(separator: " ").map(String.init)
            if words.starts(with: ["swift", "run", "funnel"]) { words.removeFirst(2) }
            if words.first == "funnel" { commands.append(Array(words.dropFirst())) }
        }
        return commands
    }

    func testReadmeExamplesRunAndFitEightyColumns() throws {
        let dir = Scratch.directory("readme-examples")
        try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent("sample-data"), withDestinationURL: sampleData)
        try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("schemas/flows/glp1.json"),
                                        to: dir.appendingPathComponent("my-flow.json"))
        let environment = ProcessInfo.processInfo.environment.filter { $0.key != "FUNNEL_STORE" }
        let commands = try readmeCommands()
        XCTAssertGreaterThanOrEqual(commands.count, 15, "\(commands)")
        var outputs: [String: String] = [:]
        for var args in commands {
            // The simulator example writes 40,000 users to /tmp: a few hundred, here, do.
            if args.first == "sample" {
                args = args.map { $0 == "40000" ? "300" : $0 == "/tmp/logs" ? "logs" : $0 }
            }
            let r = try runFunnel(args, environment: environment, directory: dir)
            let label = "funnel " + args.joined(separator: " ")
            XCTAssertEqual(r.status, 0, "\(label): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("warning"), "\(label): \(r.stderr)")
            // CSV rows and JSON strings are for programs: a value is never wrapped there.
            if !args.contains("csv") && !args.contains("json") { assertFits(r.stdout, label) }
            assertFits(r.stderr, label + " (stderr)")
            outputs[args.joined(separator: " ")] = r.stdout
        }
        // The replay example lands mid-journey: the user is in progress at that time.
        let replay = try XCTUnwrap(outputs.first { $0.key.hasPrefix("replay") && $0.key.contains("--at") && $0.key.contains("json") })
        let verdict = try jsonObject(replay.value)
        XCTAssertEqual(verdict["state"] as? String, "in_progress", replay.value)
        XCTAssertEqual(verdict["current_step"] as? String, "healthKitBenefits", replay.value)
        // The filter example selects users, and the report example ingested every day.
        let filtered = try XCTUnwrap(outputs.first { $0.key.contains("--where weightGoal=maintain") })
        XCTAssertTrue(filtered.value.contains("weightGoal=maintain"), filtered.value)
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("glp1.html"), encoding: .utf8).prefix(15), "<!DOCTYPE html>")
    }
}
