import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Scratch folders for the tests. All of a test process's folders sit under one root,
/// `funnel-tests-PID` in the system's temporary folder, which is removed when the process
/// exits, so a `swift test` run leaves nothing behind (each run used to leave a few hundred
/// megabytes of stores and day files).
public enum Scratch {
    /// The test process's root folder, made on first use; its removal is registered with `atexit`.
    public static let root: URL = {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("funnel-tests-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: root)
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: Scratch.root) }
        return root
    }()

    /// Writes `bytes` to the file `name` in `folder`; returns its path.
    public static func file(_ bytes: [UInt8], named name: String, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A new empty folder under `root`, named `prefix-UUID`.
    public static func directory(_ prefix: String) -> URL {
        let dir = root.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}
