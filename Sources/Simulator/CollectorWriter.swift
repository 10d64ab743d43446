import EventLog
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
    }

    public init(seed: UInt64) { self.seed = seed }

    public func write(_ events: SimulatedEvents, to directory: String) throws -> CollectorSummary {
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw InputError(kind: .unreadable, path: directory, offset: 0, reason: "cannot create directory: " + String(cString: strerror(errno)))
        }
        var rng = SplitMix64(seed: SplitMix64.mix(seed ^ 0xC011_EC70))
        var summary = CollectorSummary()
        summary.events = events.count
        // Arrival: the event's own day, or for a late one some hours into the next day.
        var byDay: [Int64: [(arrival: Int64, index: Int)]] = [:]
        for i in 0..<events.count {
            let t = events.micros[i]
            var day = t >= 0 ? t / 86_400_000_000 : (t - 86_399_999_999) / 86_400_000_000
            var arrival = t + Int64(rng.int(200...30_000)) * 1000
            if rng.chance(lateRate) {
                day += 1
                arrival = day * 86_400_000_000 + Int64(rng.int(0...(6 * 3600))) * 1_000_000
                summary.late += 1
            }
            byDay[day, default: []].append((arrival, i))
        }
        // The single-member layout's whole file, before it is compressed at once.
        var single: [UInt8] = []
        for day in byDay.keys.sorted() {
            guard var arrivals = byDay[day] else { continue }
            arrivals.sort { $0.arrival != $1.arrival ? $0.arrival < $1.arrival : $0.index < $1.index }
            var batches: [[Int]] = []
            var k = 0
            while k < arrivals.count {
                let n = min(rng.int(batchSize), arrivals.count - k)
                batches.append(arrivals[k..<(k + n)].map(\.index))
                k += n
            }
            // Re-sent lines go into a later batch (or the same one, for the last).
            for b in 0..<batches.count {
                for index in batches[b] where rng.chance(duplicateRate) {
                    let target = min(batches.count - 1, b + rng.int(0...2))
                    batches[target].append(index)
                    summary.duplicates += 1
                }
            }
            // Out of order within the day.
            if batches.count > 1 {
                for i in stride(from: batches.count - 1, to: 0, by: -1) {
                    batches.swapAt(i, rng.int(0...i))
                }
            }
            switch layout {
            case .daily:
                try writeFile(directory + "/events-" + LineBuilder.day(day) + ".ndjson.gz", batches, events, &summary)
            case .split(let n):
                for k in 0..<max(1, n) {
                    let mine = batches.map { $0.filter { Int(events.users[$0]) % max(1, n) == k } }
                    // No file for a part without lines (an empty file is no gzip).
                    guard mine.contains(where: { !$0.isEmpty }) else { continue }
                    try writeFile(directory + "/events-" + LineBuilder.day(day) + "-\(k + 1).ndjson.gz", mine, events, &summary)
                }
            case .single:
                for batch in batches {
                    for index in batch { single += events.bytes[events.range(index)] }
                    summary.lines += batch.count
                }
            }
        }
        if layout == .single {
            let path = directory + "/events.ndjson.gz"
            let writer = try GzipWriter(replacing: path, level: compressionLevel)
            try writer.writeMember(single)
            try writer.commit()
            summary.members += 1
            summary.files.append(path)
        }
        return summary
    }

    /// One multi-member file: a member per batch that has lines, written whole or not at all
    /// (`GzipWriter(replacing:)`).
    private func writeFile(_ path: String, _ batches: [[Int]], _ events: SimulatedEvents,
                           _ summary: inout CollectorSummary) throws {
        let writer = try GzipWriter(replacing: path, level: compressionLevel)
        var chunk: [UInt8] = []
        for batch in batches where !batch.isEmpty {
            chunk.removeAll(keepingCapacity: true)
            for index in batch { chunk += events.bytes[events.range(index)] }
            try writer.writeMember(chunk)
            summary.members += 1
            summary.lines += batch.count
        }
        try writer.commit()
        summary.files.append(path)
    }
}
