import LogFiles
import FunnelModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `CollectorWriter` wrote.
public struct CollectorSummary: Sendable, Hashable {
    /// The files written, in day order (full paths).
    public var files: [String] = []
    /// Lines written, re-sent duplicates included.
    public var lines = 0
    /// Distinct events.
    public var events = 0
    /// Lines that repeat an earlier line (re-sent batches).
    public var duplicates = 0
    /// Events that arrived in the next day's file.
    public var late = 0
    /// Gzip members written.
    public var members = 0
}

/// Writes simulated events the way a collector does: one file per UTC day
/// (`events-YYYY-MM-DD.ndjson.gz`), each a multi-member gzip with one member per batch of a
/// few hundred lines; batches are written out of order within the day; about 1 % of lines are
/// re-sent (identical) in a later batch; a few events arrive late, in the next day's file.
public struct CollectorWriter: Sendable {
    public var seed: UInt64
    public var batchSize: ClosedRange<Int> = 200...500
    public var duplicateRate = 0.01
    public var lateRate = 0.002
    /// zlib level, 1 (fast) to 9 (small).
    public var compressionLevel: Int32 = 6
    /// How the lines are packed into files; every layout holds the same lines, in the same
    /// batches, from the same seed.
    public var layout: Layout = .daily
    /// The files' extension: `ndjson.gz` for funnel's own lines, a vendor's for its export.
    public var fileExtension = CollectorWriter.nativeFileExtension
    /// The extension of funnel's own log files.
    public static let nativeFileExtension = "ndjson.gz"

    public enum Layout: Sendable, Hashable {
        /// One multi-member file per UTC day, `events-YYYY-MM-DD.ndjson.gz`.
        case daily
        /// Each day's users split over this many multi-member files,
        /// `events-YYYY-MM-DD-K.ndjson.gz` (K from 1; a user's day in one file), as
        /// collectors behind a load balancer write them.
        case split(Int)
        /// Every line in one single-member gzip file, `events.ndjson.gz`, the days in order:
        /// what `gzip` makes of an export.
        case single
        /// Each day's lines split by the UTC hour of their event time,
        /// `events-YYYY-MM-DD-HH.ndjson.gz`, as Amplitude's export packs them.
        case hourly
    }

    public init(seed: UInt64) { self.seed = seed }

    /// Writes `lines` into `directory` (made when missing) in the layout's files, each whole
    /// or not at all; `progress` is told the lines written so far and how many there are in all.
    public func write<Lines: SimulatedLines>(_ lines: Lines, to directory: String,
                                             progress: ((_ written: Int, _ total: Int) -> Void)? = nil) throws -> CollectorSummary {
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw InputError(kind: .unreadable, path: directory, offset: 0, reason: "cannot create directory: " + String(cString: strerror(errno)))
        }
        let plan = CollectorPlan(lines, for: self)
        var summary = CollectorSummary()
        summary.events = plan.events
        summary.duplicates = plan.duplicates
        summary.late = plan.late
        let report: (CollectorSummary) -> Void = { progress?($0.lines, plan.lines) }
        switch layout {
        case .daily:
            for day in plan.days {
                try writeFile(directory + "/events-" + LineBuilder.day(day.day) + "." + fileExtension, day.batches, lines, &summary, report)
            }
        case .split(let n):
            let parts = max(1, n)
            try writeParts(plan, parts, { Int(lines.userIndex($0)) % parts }, { "-\($0 + 1)" }, lines, directory, &summary, report)
        case .hourly:
            let hour = { (i: Int) in Int(Timestamp.wallClock(micros: lines.eventMicros(i), offsetSeconds: 0).secondOfDay / 3600) }
            try writeParts(plan, 24, hour, { $0 < 10 ? "-0\($0)" : "-\($0)" }, lines, directory, &summary, report)
        case .single:
            try writeSingle(directory + "/events." + fileExtension, plan, lines, &summary, report)
        }
        return summary
    }

    /// Each day's lines in `count` files, line i in part `part(i)`, the file named by the day
    /// and `suffix(part)`; no file for a part without lines (an empty file is no gzip).
    private func writeParts<Lines: SimulatedLines>(_ plan: CollectorPlan, _ count: Int, _ part: (Int) -> Int,
                                                   _ suffix: (Int) -> String, _ lines: Lines, _ directory: String,
                                                   _ summary: inout CollectorSummary,
                                                   _ report: (CollectorSummary) -> Void) throws {
        for day in plan.days {
            for k in 0..<count {
                let mine = day.batches.map { $0.filter { part($0) == k } }
                guard mine.contains(where: { !$0.isEmpty }) else { continue }
                try writeFile(directory + "/events-" + LineBuilder.day(day.day) + suffix(k) + "." + fileExtension, mine, lines, &summary, report)
            }
        }
    }

    /// One multi-member file: a member per batch that has lines, written whole or not at all
    /// (`GzipWriter(replacing:)`).
    private func writeFile<Lines: SimulatedLines>(_ path: String, _ batches: [[Int]], _ lines: Lines,
                                                  _ summary: inout CollectorSummary,
                                                  _ report: (CollectorSummary) -> Void) throws {
        let writer = try GzipWriter(replacing: path, level: compressionLevel)
        var chunk: [UInt8] = []
        for batch in batches where !batch.isEmpty {
            chunk.removeAll(keepingCapacity: true)
            for index in batch { try lines.appendLine(index, to: &chunk) }
            try writer.writeMember(chunk)
            summary.members += 1
            summary.lines += batch.count
            report(summary)
        }
        try writer.commit()
        summary.files.append(path)
    }

    /// The single-member file: every day's batches in order, streamed into one gzip member.
    private func writeSingle<Lines: SimulatedLines>(_ path: String, _ plan: CollectorPlan, _ lines: Lines,
                                                    _ summary: inout CollectorSummary,
                                                    _ report: (CollectorSummary) -> Void) throws {
        let writer = try GzipWriter(replacing: path, level: compressionLevel)
        try writer.startMember()
        var chunk: [UInt8] = []
        for day in plan.days {
            for batch in day.batches {
                chunk.removeAll(keepingCapacity: true)
                for index in batch { try lines.appendLine(index, to: &chunk) }
                try writer.writePart(chunk)
                summary.lines += batch.count
                report(summary)
            }
        }
        try writer.finishMember()
        try writer.commit()
        summary.members += 1
        summary.files.append(path)
    }
}
