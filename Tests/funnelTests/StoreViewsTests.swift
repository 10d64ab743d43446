import XCTest
import Foundation
import TestSupport

/// The store's views as another tool reads them: DuckDB through its sqlite extension
/// (scripts/duckdb_store.py) gives the event counts of `funnel export` and the figures of
/// `funnel report`.
final class StoreViewsTests: XCTestCase {
    func testDuckDBReadsTheViews() throws {
        guard try PythonModules.require("duckdb, duckdb_extension_sqlite_scanner",
                                        missing: "DuckDB's sqlite extension is not installed (pip install duckdb-extension-sqlite-scanner)")
        else { return }
        let store = tempDir().appendingPathComponent("s.sqlite").path
        let inputs = ["glp1", "edge"].map { sampleData.appendingPathComponent($0).path }
        XCTAssertEqual(try runFunnel(["ingest", "--store", store] + inputs).status, 0)

        let duck = Process()
        duck.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        duck.arguments = ["python3", packageRoot.appendingPathComponent("scripts/duckdb_store.py").path, store]
        let out = Pipe()
        duck.standardOutput = out
        try duck.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        duck.waitUntilExit()
        XCTAssertEqual(duck.terminationStatus, 0)
        let seen = try jsonObject(String(decoding: data, as: UTF8.self))

        // Events per name, counted from the exported lines.
        let export = try runFunnel(["export", "--store", store])
        var byName: [String: Int] = [:]
        for line in export.stdout.split(separator: "\n") {
            let o = try jsonObject(String(line))
            byName[o["event"] as? String ?? "?", default: 0] += 1
        }
        XCTAssertEqual(seen["events"] as? [String: Int], byName)
        XCTAssertEqual(byName["onboarding.started"], 394)
        XCTAssertEqual(byName["sign_in_succeeded"], 1, "the unprefixed name is kept as written")

        let report = try jsonObject(try runFunnel(["report", "--store", store, "--flow", "glp1", "--format", "json"]).stdout)
        let users = try XCTUnwrap(report["users"] as? [String: Any])
        XCTAssertEqual(seen["users"] as? [String: Int], [
            "glp1/completed": users["completed"] as? Int ?? -1,
            "glp1/in_progress": users["in_progress"] as? Int ?? -1,
            "glp1/abandoned": users["abandoned"] as? Int ?? -1,
        ])
    }
}
