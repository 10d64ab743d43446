import FunnelModel

extension ReportAccumulator {
    /// The time buckets from the first seen to the last, each one (an empty bucket too, so a
    /// trend shows its gaps), in order.
    static func everyBucket(_ seen: [String], by: ReportQuery.Dimension) -> [String] {
        let starts = seen.compactMap { Timestamp.parse($0) }.sorted()
        guard let first = starts.first, let last = starts.last, let seconds = by.bucketSeconds,
              starts.count == seen.count else { return seen.sorted() }
        let step = Int(seconds) * 1_000_000
        return stride(from: first.micros, through: last.micros, by: step).map { Timestamp(micros: $0).utcDay }
    }
}

extension FunnelReport {
    /// For `--by day` and `--by week` (alone or with another dimension): whether each group's
    /// bucket is settled, that is, it ended at least the idle window before as-of, so that
    /// none of its users can still complete.
    mutating func markSettled(by dimensions: [ReportQuery.Dimension], asOf: Timestamp, idleSeconds: Double) {
        guard let time = dimensions.first(where: { $0.bucketSeconds != nil }), let seconds = time.bucketSeconds,
              var groups else { return }
        let horizon = asOf.micros - Int64(idleSeconds * 1_000_000)
        for i in groups.indices {
            guard let start = groups[i].value(of: time.description).flatMap({ Timestamp.parse($0) }) else { continue }
            groups[i].settled = start.micros + Int64(seconds * 1_000_000) <= horizon
        }
        self.groups = groups
    }
}
