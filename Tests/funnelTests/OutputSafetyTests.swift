import Foundation
import XCTest
import TestSupport

/// An output never destroys an input (docs/security.md): no `--output` or `--out` writes over
/// the store, a file the command reads, a SQLite database or a log the store has ingested,
/// however it is named; outputs are written whole or not at all; the extension gives the
/// format.
final class OutputSafetyTests: XCTestCase {
    static let log = packageRoot.appendingPathComponent("Tests/Fixtures/hostile.ndjson")
    static let flows = packageRoot.appendingPathComponent("Tests/Fixtures").path

    /// A folder with a store holding the hostile log, and a copy of that log.
    func storeWithLog() throws -> (dir: URL, store: String, log: String) {
        let dir = tempDir()
        let log = dir.appendingPathComponent("events.ndjson").path
        try FileManager.default.copyItem(atPath: Self.log.path, toPath: log)
        let store = dir.appendingPathComponent("v.sqlite").path
        let r = try runFunnel(["ingest", "--store", store, "--flows", Self.flows, log])
        XCTAssertEqual(r.status, 0, r.stderr)
        return (dir, store, log)
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// `args` fails with exit 2 and a message naming `named`, leaving `path` byte for byte.
    func assertRefused(_ args: [String], _ path: String, named: String, because reason: String,
                       in dir: URL? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try bytes(path)
        let r = try runFunnel(args, directory: dir)
        XCTAssertEqual(r.status, 2, "\(args): \(r.stdout) \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains("refusing to write --output \(named): \(reason); nothing was written"), r.stderr, file: file, line: line)
        XCTAssertEqual(try bytes(path), before, "\(path) changed", file: file, line: line)
        XCTAssertEqual(r.stdout, "", file: file, line: line)
    }

    func testNoCommandWritesOverTheStore() throws {
        let (dir, store, _) = try storeWithLog()
        let common = ["--store", store, "--flows", Self.flows]
        for args in [["report", "--flow", "mini"], ["users", "--flow", "mini"], ["explain", "--flow", "mini", "--step", "signIn"],
                     ["flows", "drift", "--flow", "mini"]] {
            try assertRefused(args + common + ["--output", store], store, named: store, because: "it is the store")
        }
        try assertRefused(["export", "--store", store, "--output", store], store, named: store, because: "it is the store")
        // Named otherwise: relative, with `./`, through a link; its WAL and lock files too.
        try assertRefused(["report", "--flow", "mini", "--store", "v.sqlite", "--flows", Self.flows, "--output", "./v.sqlite"],
                          store, named: "./v.sqlite", because: "it is the store", in: dir)
        let link = dir.appendingPathComponent("link.txt").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: store)
        try assertRefused(["report", "--flow", "mini"] + common + ["--output", link], store, named: link, because: "it is the store")
        let lock = store + ".lock"
        if !FileManager.default.fileExists(atPath: lock) {
            XCTAssertTrue(FileManager.default.createFile(atPath: lock, contents: Data()), "making \(lock)")
        }
        try assertRefused(["users", "--flow", "mini"] + common + ["--output", lock], lock, named: lock,
                          because: "it is the store's lock file (\(lock))")
        // The store still answers.
        let r = try runFunnel(["report", "--flow", "mini", "--format", "json"] + common)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual((try jsonObject(r.stdout)["users"] as? [String: Any])?["started"] as? Int, 9)
    }

    func testNoCommandWritesOverASQLiteDatabaseOrAnIngestedLog() throws {
        let (dir, store, log) = try storeWithLog()
        let common = ["--store", store, "--flows", Self.flows]
        // Another store (any SQLite database), whatever its name.
        let other = dir.appendingPathComponent("backup.json").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", other, "--flows", Self.flows, log]).status, 0)
        try assertRefused(["report", "--flow", "mini"] + common + ["--output", other], other, named: other, because: "it is a SQLite database")
        try assertRefused(["export", "--store", store, "--output", other], other, named: other, because: "it is a SQLite database")
        // The log the store ingested, by its name and as a copy of its bytes elsewhere.
        try assertRefused(["export", "--store", store, "--output", log], log, named: log, because: "the store has ingested it (as \(log))")
        let copy = dir.appendingPathComponent("copy.csv").path
        try FileManager.default.copyItem(atPath: log, toPath: copy)
        try assertRefused(["users", "--flow", "mini"] + common + ["--output", copy], copy, named: copy,
                          because: "the store has ingested a log with the same bytes (\(log))")
    }

    func testReportNeverWritesOverItsOwnInputsOrFlowFiles() throws {
        let dir = tempDir()
        let log = dir.appendingPathComponent("events.ndjson").path
        try FileManager.default.copyItem(atPath: Self.log.path, toPath: log)
        let flows = dir.appendingPathComponent("flows")
        try FileManager.default.createDirectory(at: flows, withIntermediateDirectories: true)
        let flow = flows.appendingPathComponent("mini.json").path
        try FileManager.default.copyItem(atPath: Self.flows + "/mini-flow.json", toPath: flow)
        let store = dir.appendingPathComponent("new.sqlite").path
        try assertRefused(["report", "--store", store, "--flows", flows.path, "--flow", "mini", "--output", log, log], log,
                          named: log, because: "the command reads it")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store), "the store was created before the refusal")
        try assertRefused(["report", "--store", store, "--flows", flows.path, "--flow", "mini", "--format", "json", "--output", flow, log],
                          flow, named: flow, because: "the command reads it")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store))
    }

    func testFormatFollowsTheExtensionAndAConflictIsAUsageError() throws {
        let (dir, store, _) = try storeWithLog()
        let common = ["report", "--flow", "mini", "--store", store, "--flows", Self.flows]
        for (name, check) in [("r.html", "<!DOCTYPE html>"), ("r.json", "{\n"), ("r.csv", "group,lane,step,"), ("r.md", "# Mini (mini)"),
                              ("r.txt", "Mini (mini)\n"), ("r.out", "Mini (mini)\n")] {
            let path = dir.appendingPathComponent(name).path
            let r = try runFunnel(common + ["--output", path])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(try String(contentsOfFile: path, encoding: .utf8).hasPrefix(check), name)
        }
        let users = dir.appendingPathComponent("u.csv").path
        XCTAssertEqual(try runFunnel(["users", "--flow", "mini", "--store", store, "--flows", Self.flows, "--output", users]).status, 0)
        XCTAssertTrue(try String(contentsOfFile: users, encoding: .utf8).hasPrefix("user_id,state,"))
        // A conflicting pair, and an extension the command cannot write: usage errors (64), no file.
        let conflict = dir.appendingPathComponent("c.html").path
        var r = try runFunnel(common + ["--format", "csv", "--output", conflict])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("--format csv and --output \(conflict) (a html file) disagree"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: conflict))
        let explain = dir.appendingPathComponent("e.csv").path
        r = try runFunnel(["explain", "--flow", "mini", "--step", "signIn", "--store", store, "--flows", Self.flows, "--output", explain])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("--output \(explain) names a csv file, a format this command does not write (text, json, markdown)"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: explain))
        // The same pair agreeing is fine.
        r = try runFunnel(common + ["--format", "html", "--output", conflict])
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    /// A replaced output is replaced whole: the old content until the new one is complete,
    /// the same permissions, no temporary file left.
    func testOutputsAreReplacedWhole() throws {
        let (dir, store, _) = try storeWithLog()
        let path = dir.appendingPathComponent("report.json").path
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(chmod(path, 0o640), 0)
        let r = try runFunnel(["report", "--flow", "mini", "--store", store, "--flows", Self.flows, "--output", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual((try jsonObject(try String(contentsOfFile: path, encoding: .utf8))["users"] as? [String: Any])?["started"] as? Int, 9)
        let mode = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o640)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }, [])
        // A failure before the write (an unknown flow) leaves the old file as it was.
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
        let failed = try runFunnel(["report", "--flow", "nosuchflow", "--store", store, "--flows", Self.flows, "--output", path])
        XCTAssertEqual(failed.status, 2, failed.stderr)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "old\n")
    }

    func testSampleRefusesAFolderThatHoldsLogs() throws {
        let dir = tempDir()
        let out = dir.appendingPathComponent("collector")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let day = out.appendingPathComponent("events-2026-10-01.ndjson.gz").path
        try Data("real collector data\n".utf8).write(to: URL(fileURLWithPath: day))
        let args = ["sample", "--flow", "glp1", "--users", "5", "--days", "1", "--out", out.path]
        let r = try runFunnel(args)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("--out \(out.path) already holds 1 log (\(day)): refusing to write over them; nothing was written"), r.stderr)
        XCTAssertEqual(try String(contentsOfFile: day, encoding: .utf8), "real collector data\n")
        // With --force it writes; into a new folder or one without logs it needs none.
        XCTAssertEqual(try runFunnel(args + ["--force"]).status, 0)
        XCTAssertNotEqual(try bytes(day), Data("real collector data\n".utf8))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix(".") }, [], "a temporary file left")
        let other = dir.appendingPathComponent("notes")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: other.appendingPathComponent("README.txt"))
        XCTAssertEqual(try runFunnel(["sample", "--flow", "glp1", "--users", "5", "--days", "1", "--out", other.path]).status, 0)
        XCTAssertEqual(try runFunnel(["sample", "--flow", "glp1", "--users", "5", "--days", "1", "--out", dir.appendingPathComponent("new").path]).status, 0)
        // A file is not a folder.
        let notFolder = try runFunnel(["sample", "--flow", "glp1", "--users", "5", "--out", day])
        XCTAssertEqual(notFolder.status, 2, notFolder.stderr)
        XCTAssertTrue(notFolder.stderr.contains("--out \(day) is a file, not a folder"), notFolder.stderr)
    }

    /// `funnel sample` killed while it writes leaves the old day file whole and no file of its
    /// own: its spool never has a name (it is open, deleted, while the users are simulated),
    /// and the day file being written is a temporary until it is renamed.
    func testKilledSampleLeavesOldFilesAndNoTemporary() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { throw XCTSkip("no /proc to see open files") }
        let out = tempDir().appendingPathComponent("collector")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let day = out.appendingPathComponent("events-2026-10-01.ndjson.gz").path
        try Data("real collector data\n".utf8).write(to: URL(fileURLWithPath: day))
        let process = Process()
        process.executableURL = try funnelBinary()
        process.arguments = ["sample", "--flow", "glp1", "--users", "20000", "--days", "2", "--force", "--out", out.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        func openFiles() -> [String] {
            let fds = "/proc/\(process.processIdentifier)/fd"
            return ((try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? []).compactMap {
                try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + $0)
            }
        }
        func temporaries() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).filter { $0.hasPrefix(".") }
        }
        let deadline = Date().addingTimeInterval(120)
        var spool: String?
        while process.isRunning && Date() < deadline && (spool == nil || temporaries().isEmpty) {
            spool = spool ?? openFiles().first { $0.contains("/.funnel-spool-") }
            usleep(5_000)
        }
        XCTAssertTrue(process.isRunning, "the sample ended before it could be killed while writing")
        let spoolPath = try XCTUnwrap(spool, "no spool open")
        XCTAssertTrue(spoolPath.hasSuffix(" (deleted)"), spoolPath)
        XCTAssertFalse(temporaries().isEmpty, "not yet writing a day file")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(try String(contentsOfFile: day, encoding: .utf8), "real collector data\n")
        // What a kill leaves is the day file's temporary (a ReplacingFile's, never read as a
        // log), not the spool.
        XCTAssertEqual(temporaries().filter { !$0.contains(".ndjson.gz.funnel-") }, [])
    }
}
