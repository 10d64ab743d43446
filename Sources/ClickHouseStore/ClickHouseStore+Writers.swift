import Foundation
import FunnelModel
import Workers
import StoreCore

/// Who writes the store now: a ClickHouse store has no lock file, so an ingest or rebuild
/// says in the coordinator's `writers` table that it runs (one row when it starts, a fresh
/// row every `Tuning.writerHeartbeat` seconds while it runs, one marked ended when it ends).
/// Times are the server's (`now()`), so clocks of other machines do not matter. A writer
/// killed before it ended stops beating: once its last heartbeat is older than
/// `Tuning.writerGoneAfter` it is no longer counted as running, so a kill never leaves the
/// store busy; one of this machine whose process is gone is not counted at once. The table
/// is a ReplacingMergeTree by writer: merges keep each writer's last row.
extension ClickHouseStore {
    /// A writer running now, as the `writers` table says.
    public struct Writer: Sendable, Equatable, CustomStringConvertible {
        /// `ingest` or `rebuild`.
        public var command: String
        public var host: String
        public var pid: Int
        /// When it started, by the coordinator's clock (whole seconds).
        public var startedAt: Timestamp
        /// Seconds since its last heartbeat reached the coordinator.
        public var silentSeconds: Int

        /// `ingest, pid 4242 on host, since 2026-11-25T16:40:02.000Z, last heartbeat 3 s ago`.
        public var description: String {
            "\(command), pid \(pid) on \(host), since \(startedAt), last heartbeat \(silentSeconds) s ago"
        }
    }

    /// The writers running now: not ended, and heard from within `goneAfter` seconds
    /// (`Tuning.writerGoneAfter` when nil; a writer silent longer was killed), and, on this
    /// machine (by host name), whose process still exists. Oldest first.
    public func runningWriters(goneAfter: Int? = nil) throws -> [Writer] {
        let goneAfter = goneAfter ?? Tuning.writerGoneAfter
        var out: [Writer] = []
        try rows(coordinator, """
            SELECT argMax(command, beat), argMax(host, beat), argMax(pid, beat), toInt64(min(started)),
                   toInt64(now()) - toInt64(max(beat))
            FROM writers GROUP BY run
            HAVING max(ended) = 0 AND max(beat) >= now() - \(goneAfter)
            ORDER BY min(started), run
            """, doing: "reading who writes \(location)") { r in
            out.append(Writer(command: try r.string(), host: try r.string(), pid: Int(try r.uint32()),
                              startedAt: Timestamp(micros: try r.int64() * 1_000_000), silentSeconds: Int(try r.int64())))
        }
        let here = ProcessInfo.processInfo.hostName
        return out.filter { $0.host != here || Self.processExists($0.pid) }
    }

    /// Whether a process `pid` runs on this machine (a signal 0 reaches it, or it is another user's).
    static func processExists(_ pid: Int) -> Bool {
        guard let pid = pid_t(exactly: pid), pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// Waits while another ingest or rebuild writes the store (`runningWriters`), looking again
    /// every `Tuning.writerWaitPoll` seconds; `waiting` is told of the first writer found, once.
    /// With `wait` false, a writer found is a busy `StoreError` at once. A check, not a lock:
    /// two writers that start in the same instant both go on, and the ingest's commit still
    /// refuses the second input committed in between.
    public func waitForOtherWriters(wait: Bool, waiting: (Writer) -> Void) throws {
        var told = false
        while let writer = try runningWriters().first {
            guard wait else {
                throw StoreError(doing: "starting to write \(location)",
                                 reason: "another ingest or rebuild is writing it (\(TerminalText.escape(writer.description))); "
                                     + "run again when it ends, or leave out --no-wait to wait for it", kind: .busy)
            }
            if !told { waiting(writer) }
            told = true
            Thread.sleep(forTimeInterval: Tuning.writerWaitPoll)
        }
    }

    /// Says in `writers` that `command` writes the store from now until `end()` is called on
    /// what this returns (a heartbeat thread keeps its row fresh meanwhile).
    public func startWriting(_ command: String) throws -> WriterMark {
        try WriterMark(store: self, command: command)
    }

    /// One writer's rows in `writers`, while it runs.
    public final class WriterMark: Sendable {
        private let store: ClickHouseStore
        private let row: Row
        /// Writes the row again every `Tuning.writerHeartbeat` seconds until `end()`.
        private let heartbeat: Repeating

        fileprivate init(store: ClickHouseStore, command: String) throws {
            self.store = store
            let doing = "recording the \(command) in the writers of \(store.location)"
            var now: UInt32 = 0
            try store.rows(store.coordinator, "SELECT toUInt32(now())", doing: doing) { now = try $0.uint32() }
            let row = Row(run: UInt64.random(in: 1...UInt64.max), command: command, started: now)
            self.row = row
            try row.write(to: store, ended: false, doing: doing)
            // A heartbeat that fails (a server restarting) is only a missed one: the next tries again.
            heartbeat = Repeating(name: "funnel-heartbeat", every: Tuning.writerHeartbeat) {
                try? row.write(to: store, ended: false, doing: doing)
            }
        }

        /// The writer has ended: the heartbeat stops, then its row says so (a failure to say
        /// it leaves the row to go silent, as a killed writer's does). Later calls do nothing.
        public func end() {
            guard heartbeat.stop() else { return }
            try? row.write(to: store, ended: true, doing: "recording the end of the \(row.command) in the writers of \(store.location)")
        }

        /// What a writer's row says of it, but whether it ended.
        private struct Row: Sendable {
            let run: UInt64
            let command: String
            let started: UInt32

            func write(to store: ClickHouseStore, ended: Bool, doing: String) throws {
                var row = RowBinaryWriter()
                row.uint64(run)
                row.string(command)
                row.string(ProcessInfo.processInfo.hostName)
                row.uint32(UInt32(clamping: getpid()))
                row.uint32(started)
                row.uint8(ended ? 1 : 0)
                try store.coordinator.insert(into: "writers", columns: ["run", "command", "host", "pid", "started", "ended"],
                                             rows: row, doing: doing)
            }
        }
    }
}
