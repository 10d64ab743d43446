import Foundation
import XCTest
import TestSupport

/// Every command's `--help`, and every example command of the README and of the --help
/// texts, run as shown on the bundled sample data: each succeeds, says what it should and
/// every line it prints fits 80 columns.
final class WidthTests: XCTestCase {
    static let subcommands = ["ingest", "report", "users", "replay", "explain", "paths", "rebuild", "quarantine", "export", "flows", "sample"]
    static let flowsSubcommands = ["list", "show", "path", "check", "drift"]

    func assertFits(_ text: String, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        for l in text.split(separator: "\n", omittingEmptySubsequences: false) where l.count > 80 {
            XCTFail("\(label): \(l.count) columns: \(l)", file: file, line: line)
        }
    }

    /// Every command as typed for its help: the top level, each subcommand, each `flows` one.
    static var commands: [[String]] {
        [[]] + subcommands.map { [$0] } + flowsSubcommands.map { ["flows", $0] }
    }

    /// The environment the tests run commands in: no store chosen for them, and the
    /// 80-column terminal ArgumentParser assumes when it cannot ask one (so a wider
    /// terminal running the tests changes nothing).
    static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { $0.key != "FUNNEL_STORE" }
        environment["COLUMNS"] = "80"
        return environment
    }

    /// Help, usage lines included (ArgumentParser never wraps those), and the usage a
    /// mistyped option prints (after the missing argument, if one is), fit 80 columns for
    /// every command.
    func testEveryHelpFitsEightyColumns() throws {
        var helps: [[String]] = [["--help"], ["help"]]
        helps += Self.subcommands.map { [$0, "--help"] } + Self.subcommands.map { ["help", $0] }
        helps += Self.flowsSubcommands.map { ["flows", $0, "--help"] } + Self.flowsSubcommands.map { ["help", "flows", $0] }
        for args in helps {
            let r = try runFunnel(args, environment: Self.environment)
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
            let usage = try XCTUnwrap(r.stdout.split(separator: "\n").first { $0.hasPrefix("USAGE: ") }, "\(args): \(r.stdout)")
            XCTAssertLessThanOrEqual(usage.count, 80, "\(args): \(usage)")
            assertFits(r.stdout, args.joined(separator: " "))
        }
        for command in Self.commands {
            let r = try runFunnel(command + ["--no-such-option"], environment: Self.environment)
            let name = (["funnel"] + command).joined(separator: " ")
            XCTAssertEqual(r.status, 64, "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("\(name): "), r.stderr)
            XCTAssertTrue(r.stderr.contains("\nUsage: funnel"), r.stderr)
            assertFits(r.stderr, name + " --no-such-option")
        }
    }

    /// The examples of a --help text: the indented lines under `Example:` or `Examples:`.
    static func examples(inHelp text: String) -> [String] {
        var examples: [String] = []
        var inExamples = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "Example:" || line == "Examples:" { inExamples = true; continue }
            guard inExamples, line.hasPrefix("  ") else { inExamples = false; continue }
            examples.append(line.trimmingCharacters(in: .whitespaces))
        }
        return examples
    }

    /// What each --help example shows on the bundled sample data when the examples run in
    /// the order of the commands (ingest first): a line or figure of its output, or of the
    /// file it writes. A new example needs its entry here.
    static let helpExamplesShow: [String: String] = [
        "funnel ingest sample-data/glp1": "  accepted           15,726\n  duplicates            139\n",
        "funnel ingest --store edge.sqlite sample-data/edge": "  duplicates              3\n  conflicts               1\n",
        "zcat sample-data/trendy/*.gz | funnel ingest --store trendy.sqlite -": "  accepted            2,913\n",
        "funnel ingest --store ph.sqlite --source posthog sample-data/sources/posthog": "  accepted            2,727\n  duplicates             32\n",
        "funnel report --flow glp1 --cohort glp1 sample-data/glp1": "users    started 173 · completed 117 · in progress 4 · abandoned 52\n",
        "funnel report --cohort glp1 --by flag:trackingStyleQuestion": "\noff               53        37  69.8%  6m 08s  5h 21m        15    +3.1    0.684\n",
        "funnel report --flow glp1 --by app_version --by flag:trackingStyleQuestion": "\n3.1.0       on                30        22  73.3%",
        "funnel report --since 2026-10-05 --until 2026-10-08 --compare previous": "this period 2026-10-05–2026-10-08~ against 2026-10-02–2026-10-05\n",
        "funnel report --flow glp1 --where weightGoal=maintain --format json": "\"completed\" : 79,",
        "funnel report --flow glp1 --format html --output glp1.html": "<h2 id=\"tab-h\">The numbers</h2>",
        "funnel users --flow glp1 --state abandoned --step notificationsPermission": "16 users · glp1 · abandoned · at notificationsPermission",
        "funnel users --flow glp1 --state in_progress --format csv": "\nu-000354,in_progress,notificationsPermission,explorers,",
        "funnel replay --user u-000006": "abandoned at healthKitBenefits (counted as a drop-off there)",
        "funnel replay --user u-000006 --at 2026-10-03T12:00:00Z --format json": "\"verdict\" : \"in progress at healthKitBenefits",
        "funnel explain --flow glp1 --step signIn": "\neligible 393 · reached 393 · dropped there 29 · went on 360 · in progress there\n",
        "funnel explain --flow glp1 --step notificationsPermission --lane glp1": "\neligible 165 · reached 158 · dropped there 8 · went on 149 · in progress there 1\n",
        "funnel explain --flow glp1 --step healthKitBenefits --format json": "\"step\" : \"healthKitBenefits\",",
        "funnel paths --flow glp1": "users    started 393 · viewed a step 393 · moved 360\n",
        "funnel paths --flow glp1 --cohort glp1 --format json": "\"started\" : 173,",
        "funnel paths --flow glp1 --from height --to activityLevel": "users 296 · p50 1m 26s · p75 1m 58s",
        "funnel paths --flow glp1 --format html --output paths.html": "<h2 id=\"paths-h\">How users moved</h2>",
        "funnel export --output all.ndjson.gz": "exported 15726 events to all.ndjson.gz\n",
        "funnel export --flow glp1 --since 2026-10-03 --until 2026-10-04 | wc -l": "1789",
        "funnel export | funnel ingest --store copy.sqlite -": "  accepted           15,726\n  duplicates              0\n",
        "funnel flows show baby-basics": "addBaby                                               addBaby\n",
        "funnel flows path baby-basics --set authPath=log_in --set hasChildren=true": "  - addBaby    skipped: hasChildren = true\n",
        "funnel flows check schemas/flows/glp1.json": "ok\n",
        "funnel flows check schemas/flows": "schemas/flows/glp1.json: ok\n",
        "funnel flows drift --flow glp1": "flow glp1 agrees with the logs: no drift in 393 started users",
        "funnel flows drift --flow glp1 --flows my-flows --format json": "\"value\" : \"already_on_glp1\"",
        "funnel sample --flow trendy --users 500 --out trendy-logs": "trendy: 500 users, 500 started, 433 completed\n",
        "funnel sample --flow trendy --users 500 --as segment --out trendy-segment": "9 files in trendy-segment\n",
    ]

    /// Examples whose answer is no, by their exit status (flows drift finding drift: 1).
    static let helpExamplesStatus: [String: Int32] = [
        "funnel flows drift --flow glp1 --flows my-flows --format json": 1,
    ]

    func testHelpExamplesRunAndSayWhatTheyShow() throws {
        let dir = Scratch.directory("help-examples")
        for folder in ["sample-data", "schemas"] {
            try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent(folder),
                                                       withDestinationURL: packageRoot.appendingPathComponent(folder))
        }
        // The team's own definitions an example names: the built-in glp1 with a value the
        // app still sends renamed in the definition (already_on_glp1 to on_glp1).
        let myFlows = dir.appendingPathComponent("my-flows")
        try FileManager.default.createDirectory(at: myFlows, withIntermediateDirectories: true)
        try String(contentsOf: packageRoot.appendingPathComponent("schemas/flows/glp1.json"), encoding: .utf8)
            .replacingOccurrences(of: "already_on_glp1", with: "on_glp1")
            .write(to: myFlows.appendingPathComponent("glp1.json"), atomically: true, encoding: .utf8)
        var seen: [String] = []
        for command in Self.commands {
            let help = try runFunnel(command + ["--help"], environment: Self.environment)
            for example in Self.examples(inHelp: help.stdout) {
                seen.append(example)
                let r = try runShell(example, environment: Self.environment, directory: dir)
                XCTAssertEqual(r.status, Self.helpExamplesStatus[example] ?? 0, "\(example): \(r.stderr)")
                XCTAssertFalse(r.stderr.contains("warning"), "\(example): \(r.stderr)")
                if !example.contains("csv") && !example.contains("json") { assertFits(r.stdout, example) }
                assertFits(r.stderr, example + " (stderr)")
                guard let shows = Self.helpExamplesShow[example] else {
                    XCTFail("\(example): say in WidthTests.helpExamplesShow what it shows")
                    continue
                }
                var output = r.stdout
                let words = example.split(separator: " ").map(String.init)
                if let i = words.firstIndex(of: "--output"), i + 1 < words.count, !words[i + 1].hasSuffix(".gz") {
                    output += try String(contentsOf: dir.appendingPathComponent(words[i + 1]), encoding: .utf8)
                }
                XCTAssertTrue(output.contains(shows), "\(example) does not show \(shows):\n\(output.prefix(3000))")
            }
        }
        XCTAssertEqual(Set(seen).subtracting(Self.helpExamplesShow.keys), [], "examples without an entry")
        XCTAssertEqual(Set(Self.helpExamplesShow.keys).subtracting(seen), [], "entries of examples no --help shows")
        XCTAssertEqual(seen.count, Self.helpExamplesShow.count, "an example twice: \(seen)")
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
