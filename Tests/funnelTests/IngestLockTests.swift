import XCTest
import Foundation

/// Two ingests of one store: the second waits its turn (or with --no-wait fails at once), and
/// nothing is lost or stored twice.
final class IngestLockTests: XCTestCase {
    func start(_ args: [String]) throws -> (Process, Pipe, URL) {
        let p = Process()
        p.executableURL = try funnelBinary()
        p.arguments = args
        let out = Pipe()
        let errURL = tempDir().appendingPathComponent("stderr")
        XCTAssertTrue(FileManager.default.createFile(atPath: errURL.path, contents: nil))
        p.standardOutput = out
        p.standardError = try FileHandle(forWritingTo: errURL)
        try p.run()
        return (p, out, errURL)
    }

    func testConcurrentIngestsOfOverlappingInputs() throws {
        let dir = tempDir()
        let store = dir.appendingPathComponent("s.sqlite").path
        let glp1 = sampleData.appendingPathComponent("glp1").path
        let baby = sampleData.appendingPathComponent("baby-basics").path
        // Both at once on a new store: one runs the migrations and ingests, the other waits.
        let a = try start(["ingest", "--store", store, "--format", "json", glp1, baby])
        let b = try start(["ingest", "--store", store, "--format", "json", baby, glp1])
        var accepted = 0
        for (p, out, err) in [a, b] {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            let stderr = String(decoding: (try? Data(contentsOf: err)) ?? Data(), as: UTF8.self)
            XCTAssertEqual(p.terminationStatus, 0, stderr)
            accepted += try jsonObject(String(decoding: data, as: UTF8.self))["accepted"] as? Int ?? -1
        }
        // The same inputs one after the other, in a store of their own.
        let alone = dir.appendingPathComponent("t.sqlite").path
        let once = try jsonObject(try runFunnel(["ingest", "--store", alone, "--format", "json", glp1, baby]).stdout)
        XCTAssertEqual(accepted, once["accepted"] as? Int, "every event stored once across the two")
        let exported = try runFunnel(["export", "--store", store]).stdout.split(separator: "\n").count
        XCTAssertEqual(exported, once["accepted"] as? Int)
        for flow in ["glp1", "baby-basics"] {
            XCTAssertEqual(try runFunnel(["report", "--store", store, "--flow", flow, "--format", "json"]).stdout,
                           try runFunnel(["report", "--store", alone, "--flow", flow, "--format", "json"]).stdout, flow)
        }
    }

    func testNoWaitFailsWhileAnotherHoldsTheStore() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        // util-linux's flock holds the same lock an ingest takes.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["flock", store + ".lock", "sleep", "2"]
        try holder.run()
        defer { holder.waitUntilExit() }
        Thread.sleep(forTimeInterval: 0.3)
        let glp1 = sampleData.appendingPathComponent("glp1").path
        let refused = try runFunnel(["ingest", "--store", store, "--no-wait", glp1])
        XCTAssertEqual(refused.status, 75, "busy (docs/cli.md)")
        XCTAssertTrue(refused.stderr.contains("funnel ingest:") && refused.stderr.contains("another ingest or rebuild is writing \(store)"),
                      refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store), "nothing opened while refused")
        // Without --no-wait it waits for the holder, then ingests.
        let start = Date()
        let waited = try runFunnel(["ingest", "--store", store, "--format", "json", glp1])
        XCTAssertEqual(waited.status, 0, waited.stderr)
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 1.0)
        XCTAssertEqual(try jsonObject(waited.stdout)["accepted"] as? Int, 15_726)
    }
}
