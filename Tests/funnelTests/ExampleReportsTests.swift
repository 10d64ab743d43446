import XCTest
import Foundation

/// reports/ holds example reports generated from sample-data/ by scripts/gen-reports; this
/// fails when they are stale (regenerate with `scripts/gen-reports`).
final class ExampleReportsTests: XCTestCase {
    func testExampleReportsAreCurrent() throws {
        let out = tempDir().appendingPathComponent("reports")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = [packageRoot.appendingPathComponent("scripts/gen-reports").path, try funnelBinary().path, out.path]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "scripts/gen-reports failed")
        let committed = packageRoot.appendingPathComponent("reports")
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        XCTAssertEqual(names.count, 15)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: committed.path).filter { !$0.hasPrefix(".") }.sorted(), names)
        for name in names {
            let fresh = try String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)
            let kept = try String(contentsOf: committed.appendingPathComponent(name), encoding: .utf8)
            XCTAssertTrue(fresh == kept, "reports/\(name) is stale: run scripts/gen-reports")
        }
    }
}
