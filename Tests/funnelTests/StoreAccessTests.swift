import XCTest
import Foundation
import GRDB
import TestSupport

/// Stores a user can read but not write (a shared team store, a mounted backup) and stores an
/// ingest or rebuild is writing: every read command answers, says so, and leaves nothing behind.
final class StoreAccessTests: XCTestCase {
    /// The read commands, each with what it needs of the GLP-1 sample store.
    static let readCommands: [[String]] = [
        ["report", "--flow", "glp1", "--format", "json"],
        ["report", "--flow", "glp1", "--cohort", "glp1", "--by", "lane"],
        ["users", "--flow", "glp1", "--state", "abandoned", "--format", "csv"],
        ["replay", "--user", "u-000006", "--format", "json"],
        ["explain", "--flow", "glp1", "--step", "notificationsPermission", "--format", "json"],
        ["quarantine", "--format", "json"],
        ["export", "--flow", "glp1", "--since", "2026-10-03", "--until", "2026-10-04"],
        ["flows", "drift", "--flow", "glp1", "--format", "json"],
    ]

    /// A store of sample-data/glp1 in a folder of its own, closed.
    func glp1Store() throws -> (store: String, folder: URL) {
        let folder = tempDir().appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = folder.appendingPathComponent("team.sqlite").path
        let r = try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return (store, folder)
    }

    /// Runs funnel as a user who cannot write `folder` or the store in it: as root, `nobody`
    /// through setpriv (the folder and store made read-only for others); as anyone else, this
    /// user with the folder and store made read-only.
    func runAsReader(_ args: [String], folder: URL) throws -> RunResult {
        if getuid() != 0 { return try runFunnel(args, directory: folder) }
        let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
        guard FileManager.default.isExecutableFile(atPath: setpriv.path) else {
            throw XCTSkip("running as root without /usr/bin/setpriv (util-linux): no other user to read the store as")
        }
        return try runProcess(setpriv, ["--reuid=nobody", "--regid=nogroup", "--clear-groups", try funnelBinary().path] + args,
                              directory: URL(fileURLWithPath: "/"))
    }

    /// The folder's files with their owners' uids, sorted by name.
    func listing(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { name in
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            return "\(name) \((attributes[.ownerAccountID] as? NSNumber)?.intValue ?? -1)"
        }
    }

    /// Where the reader may not even create a file beside the store: every read command gives
    /// the writer's answer, says once that the store is read as it is, and leaves no file.
    func testEveryReadCommandReadsAStoreInAFolderItCannotWrite() throws {
        let (store, folder) = try glp1Store()
        let owner = try runFunnel(["report", "--store", store, "--flow", "glp1"])
        XCTAssertEqual(owner.stderr, "")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path) }
        if getuid() != 0 { try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path) }
        let before = try listing(folder)
        for args in Self.readCommands {
            let expected = try runFunnel(args + ["--store", store])
            let r = try runAsReader(args + ["--store", store], folder: folder)
            XCTAssertEqual(r.status, expected.status, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stdout, expected.stdout, "\(args)")
            XCTAssertGreaterThan(r.stdout.count, 20, "\(args): \(r.stdout)")
            let name = args[0] == "flows" ? "flows drift" : args[0]
            XCTAssertTrue(unwrapped(r.stderr).hasPrefix("funnel \(name): note: the store \(store) is read-only for this user: it is read as it is and nothing is written to it; the figures are as the store last wrote them\n"),
                          "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.components(separatedBy: "read-only for this user").count, 2, "said once: \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("attempt to write"), r.stderr)
            XCTAssertEqual(try listing(folder), before, "\(args) left a file")
        }
        // A command that writes says why it cannot, and touches nothing.
        for args in [["rebuild"], ["ingest", sampleData.appendingPathComponent("baby-basics").path]] {
            let r = try runAsReader(args + ["--store", store], folder: folder)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr, "funnel \(args[0]): the store \(store) is read-only for this user: \(args[0]) writes it (the read commands work)\n")
            XCTAssertEqual(try listing(folder), before, "\(args) left a file")
        }
    }

    /// Where the reader could create files beside the store (a shared /tmp-like folder) but
    /// not write the store: nothing owned by the reader is left.
    func testAReaderLeavesNoSideFilesInAFolderItCanWrite() throws {
        let (store, folder) = try glp1Store()
        try FileManager.default.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: folder.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store)
        let before = try listing(folder)
        XCTAssertEqual(before.count, 2, "the store and its lock file: \(before)")
        let r = try runAsReader(["report", "--store", store, "--flow", "glp1", "--format", "json"], folder: folder)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, try runFunnel(["report", "--store", store, "--flow", "glp1", "--format", "json"]).stdout)
        XCTAssertEqual(try listing(folder), before)
    }

    /// While the owner holds the store open (its -wal and -shm exist), a reader reads through
    /// them read-only, sees what is committed, and adds no file.
    func testAReaderReadsThroughTheOwnersOpenStore() throws {
        let (store, folder) = try glp1Store()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store)
        // The owner's connection, held open for a few seconds by Python's sqlite3.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["python3", "-c", """
            import sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1]); c.execute("SELECT count(*) FROM events").fetchall()
            print("open", flush=True); time.sleep(4)
            """, store]
        let out = Pipe()
        holder.standardOutput = out
        try holder.run()
        defer { holder.waitUntilExit() }
        _ = out.fileHandleForReading.availableData
        if getuid() != 0 {
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        }
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path) }
        let before = try listing(folder)
        XCTAssertTrue(before.contains { $0.hasPrefix("team.sqlite-shm ") }, "\(before)")
        let r = try runAsReader(["users", "--store", store, "--flow", "glp1", "--format", "csv"], folder: folder)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, try runFunnel(["users", "--store", store, "--flow", "glp1", "--format", "csv"]).stdout)
        XCTAssertTrue(unwrapped(r.stderr).contains("is read-only for this user"), r.stderr)
        XCTAssertEqual(try listing(folder), before)
    }

    // MARK: busy stores

    /// Holds the store's writer lock as an ingest does, for `seconds`.
    func holdLock(_ store: String, seconds: Int) throws -> Process {
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["flock", store + ".lock", "sleep", String(seconds)]
        try holder.run()
        Thread.sleep(forTimeInterval: 0.3)
        return holder
    }

    func testAReadDuringAnIngestSaysWhatItIncludes() throws {
        let (store, _) = try glp1Store()
        let holder = try holdLock(store, seconds: 3)
        defer { holder.waitUntilExit() }
        let r = try runFunnel(["report", "--store", store, "--flow", "glp1", "--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let last = sampleData.appendingPathComponent("glp1/events-2026-10-09.ndjson.gz").path
        XCTAssertTrue(unwrapped(r.stderr).hasPrefix("funnel report: note: an ingest or rebuild is writing \(store) now: the figures include the inputs finished so far (9 in the ledger, the last \(last) at 20"),
                      r.stderr)
        XCTAssertEqual((try jsonObject(r.stdout)["users"] as? [String: Int])?["started"], 393)
        let users = try runFunnel(["users", "--store", store, "--flow", "glp1"])
        XCTAssertTrue(unwrapped(users.stderr).hasPrefix("funnel users: note: an ingest or rebuild is writing \(store) now"), users.stderr)
    }

    func testAReadOfAStoreAnIngestIsCreatingSaysSo() throws {
        let store = tempDir().appendingPathComponent("new.sqlite").path
        let holder = try holdLock(store, seconds: 2)
        defer { holder.waitUntilExit() }
        let r = try runFunnel(["report", "--store", store, "--flow", "glp1"])
        XCTAssertEqual(r.status, 75, "busy (docs/cli.md)")
        XCTAssertEqual(r.stderr, "funnel report: an ingest is creating the store \(store) now; run again when it has committed its first input\n")
    }

    /// A store path that holds a file funnel cannot open as a store: exit 66 (docs/cli.md),
    /// for a read and for an ingest, and the file is left as it was.
    func testAFileThatIsNotAStoreExits66() throws {
        let store = tempDir().appendingPathComponent("notes.sqlite").path
        let text = Data(String(repeating: "not a store\n", count: 100).utf8)
        try text.write(to: URL(fileURLWithPath: store))
        let report = try runFunnel(["report", "--store", store, "--flow", "glp1"])
        XCTAssertEqual(report.status, 66, report.stderr)
        XCTAssertEqual(report.stderr, "funnel report: cannot open the store \(store): store: while opening the store \(store): file is not a database\n")
        let ingest = try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path])
        XCTAssertEqual(ingest.status, 66, ingest.stderr)
        XCTAssertEqual(ingest.stderr, "funnel ingest: cannot open the store \(store): store: while opening the store \(store): file is not a database\n")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), text)
    }

    /// A store that contradicts itself (a stored line that no longer decodes, a block of the
    /// log whose bodies are gone): exit 65 (docs/cli.md), naming the event.
    func testAStoreThatContradictsItselfExits65() throws {
        let (store, _) = try glp1Store()
        let seq = try DatabaseQueue(path: store).write { db -> Int64 in
            let seq = try Int64.fetchOne(db, sql: "SELECT min(first_seq) FROM event_blocks") ?? 0
            // The first event's body becomes one byte that starts a number and never ends it.
            try db.execute(sql: """
                UPDATE event_blocks SET bodies = x'FF' || substr(bodies, 1 + CAST(substr(cols, 1 + stride - w_body, w_body) AS INTEGER)),
                    cols = substr(cols, 1, stride - w_body) || printf('%0*d', w_body, 1)
                        || substr(cols, 1 + stride)
                WHERE first_seq = ?
                """, arguments: [seq])
            return seq
        }
        let r = try runFunnel(["export", "--store", store])
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertEqual(r.stderr, "funnel export: store: while reading event seq \(seq): the stored line does not decode: no shape\n")
        try DatabaseQueue(path: store).write { db in
            try db.execute(sql: "UPDATE event_blocks SET bodies = x'' WHERE first_seq = ?", arguments: [seq])
        }
        let gone = try runFunnel(["export", "--store", store])
        XCTAssertEqual(gone.status, 65, gone.stderr)
        XCTAssertEqual(gone.stderr, "funnel export: store: while reading event seq \(seq): its block of the log does not decode\n")
    }

    func testRebuildTakesTheWriterLock() throws {
        let (store, _) = try glp1Store()
        let report = try runFunnel(["report", "--store", store, "--flow", "glp1", "--format", "json"]).stdout
        let holder = try holdLock(store, seconds: 2)
        let refused = try runFunnel(["rebuild", "--store", store, "--no-wait"])
        XCTAssertEqual(refused.status, 75, "busy (docs/cli.md)")
        XCTAssertEqual(refused.stdout, "")
        XCTAssertTrue(refused.stderr.hasPrefix("funnel rebuild: store: while taking the writer lock \(store).lock: another ingest or rebuild is writing \(store); run again when it ends"),
                      refused.stderr)
        // Without --no-wait it says that it waits (on standard error, not a terminal here), then rebuilds.
        let start = Date()
        let waited = try runFunnel(["rebuild", "--store", store])
        holder.waitUntilExit()
        XCTAssertEqual(waited.status, 0, waited.stderr)
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 1.0)
        XCTAssertEqual(waited.stderr, "funnel rebuild: another ingest or rebuild is writing \(store); waiting for it to end\n")
        let count = try XCTUnwrap(waited.stdout.split(separator: " ").dropFirst().first.flatMap { Int($0) }, waited.stdout)
        XCTAssertGreaterThanOrEqual(count, 393, waited.stdout)
        XCTAssertEqual(try runFunnel(["report", "--store", store, "--flow", "glp1", "--format", "json"]).stdout, report)
        // An ingest meets a rebuild's lock as it meets another ingest's.
        let again = try holdLock(store, seconds: 1)
        defer { again.waitUntilExit() }
        let ingest = try runFunnel(["ingest", "--store", store, "--no-wait", sampleData.appendingPathComponent("baby-basics").path])
        XCTAssertEqual(ingest.status, 75, ingest.stderr)
        XCTAssertTrue(ingest.stderr.contains("another ingest or rebuild is writing \(store)"), ingest.stderr)
    }
}
