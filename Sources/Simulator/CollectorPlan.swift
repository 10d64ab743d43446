/// Which lines a collector writes in which batch, day by day, drawn from its seed before any
/// line's bytes are read: each event's arrival (a few seconds after its time, or late, in the
/// next day), then for each day in order its batch sizes, the re-sent duplicates and the
/// batches' shuffle. Every layout writes these batches.
struct CollectorPlan {
    struct Day {
        var day: Int64
        /// Line indices, a batch a gzip member, in the order they are written.
        var batches: [[Int]]
    }

    var days: [Day] = []
    var events = 0
    var duplicates = 0
    var late = 0
    /// Lines to write, re-sent duplicates included.
    var lines: Int { events + duplicates }

    init<Lines: SimulatedLines>(_ lines: Lines, for writer: CollectorWriter) {
        var rng = SplitMix64(seed: SplitMix64.mix(writer.seed ^ 0xC011_EC70))
        events = lines.count
        // Arrival: the event's own day, or for a late one some hours into the next day.
        var byDay: [Int64: [(arrival: Int64, index: Int)]] = [:]
        for i in 0..<lines.count {
            let t = lines.eventMicros(i)
            var day = t >= 0 ? t / 86_400_000_000 : (t - 86_399_999_999) / 86_400_000_000
            var arrival = t + Int64(rng.int(200...30_000)) * 1000
            if rng.chance(writer.lateRate) {
                day += 1
                arrival = day * 86_400_000_000 + Int64(rng.int(0...(6 * 3600))) * 1_000_000
                late += 1
            }
            byDay[day, default: []].append((arrival, i))
        }
        for day in byDay.keys.sorted() {
            guard var arrivals = byDay.removeValue(forKey: day) else { continue }
            arrivals.sort { $0.arrival != $1.arrival ? $0.arrival < $1.arrival : $0.index < $1.index }
            var batches: [[Int]] = []
            var k = 0
            while k < arrivals.count {
                let n = min(rng.int(writer.batchSize), arrivals.count - k)
                batches.append(arrivals[k..<(k + n)].map(\.index))
                k += n
            }
            // Re-sent lines go into a later batch (or the same one, for the last).
            for b in 0..<batches.count {
                for index in batches[b] where rng.chance(writer.duplicateRate) {
                    let target = min(batches.count - 1, b + rng.int(0...2))
                    batches[target].append(index)
                    duplicates += 1
                }
            }
            // Out of order within the day.
            if batches.count > 1 {
                for i in stride(from: batches.count - 1, to: 0, by: -1) {
                    batches.swapAt(i, rng.int(0...i))
                }
            }
            days.append(Day(day: day, batches: batches))
        }
    }
}
