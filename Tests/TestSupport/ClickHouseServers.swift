import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// ClickHouse servers for the tests: one single node and a two-shard cluster `events`,
/// started once per test process by `scripts/clickhouse-cluster` on loopback ports of this
/// process, with their data under `Scratch.root`, and stopped by PID when the process exits.
/// Each test takes a database of its own (`database(_:)`), so tests share the servers only.
public enum ClickHouseServers {
    public static let serverPath = "/usr/sbin/clickhouse-server"

    public struct Running: Sendable {
        /// HTTP ports: the single node, then the two shards.
        public var ports: [Int]

        /// `clickhouse://…/DATABASE` of the single node.
        public func single(_ database: String) -> String { "clickhouse://127.0.0.1:\(ports[0])/\(database)" }
        /// `clickhouse://…/DATABASE?cluster=events` of the two shards.
        public func cluster(_ database: String) -> String {
            "clickhouse://127.0.0.1:\(ports[1]),127.0.0.1:\(ports[2])/\(database)?cluster=events"
        }
    }

    /// Why the servers cannot run here, or nil when they can.
    public static var unavailable: String? {
        FileManager.default.isExecutableFile(atPath: serverPath) ? nil
            : "clickhouse-server is not installed: apt-get install -y clickhouse-server"
    }

    /// The running servers, started on first use.
    public static func shared() throws -> Running {
        try started.get()
    }

    /// A fresh database name for one test.
    public static func database(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
    }

    private static let started: Result<Running, SupportFailure> = {
        if let reason = unavailable { return .failure(SupportFailure(reason)) }
        // HTTP ports of this process: a range apart from ClickHouseScriptTests' (30000…).
        let base = 31_300 + Int(getpid() % 400) * 3
        let dir = Scratch.root.appendingPathComponent("clickhouse-servers")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/clickhouse-cluster").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, "start", dir.path]
        process.environment = ProcessInfo.processInfo.environment.merging(["FUNNEL_CH_PORT": String(base)]) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { return .failure(SupportFailure("cannot run \(script): \(error)")) }
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        stopDirectory = dir.path
        atexit { ClickHouseServers.stopAll() }
        guard process.terminationStatus == 0 else {
            return .failure(SupportFailure("scripts/clickhouse-cluster start failed: \(errorText)"))
        }
        return .success(Running(ports: [base, base + 1, base + 2]))
    }()

    nonisolated(unsafe) private static var stopDirectory: String?

    /// SIGTERM to every server, then SIGKILL to any still running after 30 s; then the
    /// errors each one logged, on standard error (their folders go with the test process,
    /// and a failed request's own message cannot say what the server saw).
    private static func stopAll() {
        guard let dir = stopDirectory else { return }
        defer { reportErrors(in: dir) }
        let pids = ["single", "shard1", "shard2"].compactMap { name -> pid_t? in
            guard let text = try? String(contentsOfFile: "\(dir)/\(name)/server.pid", encoding: .utf8) else { return nil }
            return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        for pid in pids { kill(pid, SIGTERM) }
        for pid in pids {
            var waited = 0
            while kill(pid, 0) == 0 && waited < 300 {
                usleep(100_000)
                waited += 1
            }
            if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
        }
    }

    /// The last `errorLines` error lines of each server's log, on standard error.
    private static func reportErrors(in dir: String) {
        let errorLines = 20
        for name in ["single", "shard1", "shard2"] {
            guard let text = try? String(contentsOfFile: "\(dir)/\(name)/error.log", encoding: .utf8) else { continue }
            let errors = text.split(separator: "\n").filter { $0.contains("<Error>") }
            guard !errors.isEmpty else { continue }
            let shown = errors.suffix(errorLines).map { String($0.prefix(600)) }.joined(separator: "\n")
            FileHandle.standardError.write(Data("ClickHouse test server \(name) logged \(errors.count) errors; the last ones:\n\(shown)\n".utf8))
        }
    }

}
