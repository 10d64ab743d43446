import XCTest
import Foundation

/// Python modules a test runs `python3` with, which `.ci/run` installs.
public enum PythonModules {
    /// Whether `python3` imports `modules` (as an `import` statement lists them). When it
    /// does not, the test is skipped saying `missing`, or fails under CI (`CI` set), which
    /// installs them: false, and the test stops there.
    public static func require(_ modules: String, missing: String) throws -> Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import \(modules)"]
        probe.standardError = FileHandle.nullDevice
        try probe.run()
        probe.waitUntilExit()
        guard probe.terminationStatus != 0 else { return true }
        if ProcessInfo.processInfo.environment["CI"] != nil {
            XCTFail(missing)
            return false
        }
        throw XCTSkip(missing)
    }
}
