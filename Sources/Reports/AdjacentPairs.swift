import FunnelModel
import Journeys

/// Every two steps one after the other on a lane of a definition (each pair once, in lane
/// order) and, per pair, the seconds between them of each user who viewed both in that
/// order: the adjacent pairs `funnel paths` and `funnel report` show (docs/paths.md).
struct AdjacentPairs {
    let pairs: [(from: String, to: String)]
    /// Per pair, its steps' slots (`JourneyFacts.slots`).
    private let slotPairs: [(from: Int, to: Int)]
    /// Per pair, each user's time between its steps (microseconds).
    private var durations: [[Int64]]
    /// Per slot, the user's first run of it (-1: none), and the slots set: scratch for `add`.
    private var firstRun: [Int]
    private var touched: [Int] = []

    init(_ definition: FlowDefinition) {
        var pairs: [(from: String, to: String)] = []
        for lane in definition.lanes {
            for (a, b) in zip(lane.steps, lane.steps.dropFirst()) where !pairs.contains(where: { $0 == (a.id, b.id) }) {
                pairs.append((a.id, b.id))
            }
        }
        self.pairs = pairs
        var slot: [String: Int] = [:]
        for (k, step) in JourneyFacts.slots(definition).enumerated() { slot[step] = k }
        slotPairs = pairs.map { (slot[$0.from] ?? -1, slot[$0.to] ?? -1) }
        firstRun = [Int](repeating: -1, count: slot.count)
        durations = [[Int64]](repeating: [], count: pairs.count)
    }

    /// Microseconds from the first of `count` runs whose step is `from` to the first run of
    /// `to` after it (runs in fold order, `micros` their first views); nil when there is none.
    static func micros<S: Equatable>(runs count: Int, step: (Int) -> S, micros: (Int) -> Int64, from: S, to: S) -> Int64? {
        var i = 0
        while i < count, step(i) != from { i += 1 }
        guard i < count else { return nil }
        var j = i + 1
        while j < count, step(j) != to { j += 1 }
        guard j < count else { return nil }
        return micros(j) - micros(i)
    }

    /// Adds one user's times, given the steps of their runs by name.
    mutating func add(micros: (_ from: String, _ to: String) -> Int64?) {
        for (i, pair) in pairs.enumerated() {
            if let m = micros(pair.from, pair.to) { durations[i].append(m) }
        }
    }

    /// Adds one user's times from their runs by slot (`JourneyFacts.runSlots`, `runMicros`),
    /// the runs after `asOf` left out.
    mutating func add(slots: [Int], micros: [Int64], asOf: Int64) {
        var count = 0
        while count < micros.count, micros[count] <= asOf { count += 1 }
        guard count > 1 else { return }
        for k in 0..<count where slots[k] >= 0 && slots[k] < firstRun.count && firstRun[slots[k]] < 0 {
            firstRun[slots[k]] = k
            touched.append(slots[k])
        }
        // The first run of `to` after the first of `from`: its first run when that came later.
        for (i, pair) in slotPairs.enumerated() where pair.from >= 0 && pair.to >= 0 {
            let a = firstRun[pair.from]
            guard a >= 0 else { continue }
            var j = firstRun[pair.to]
            if j <= a {
                j = a + 1
                while j < count, slots[j] != pair.to { j += 1 }
                guard j < count else { continue }
            }
            durations[i].append(micros[j] - micros[a])
        }
        for slot in touched { firstRun[slot] = -1 }
        touched.removeAll(keepingCapacity: true)
    }

    /// Adds the times of another share of the same users.
    mutating func merge(_ other: AdjacentPairs) {
        for i in durations.indices { durations[i] += other.durations[i] }
    }

    /// The time between each pair, in lane order; pairs nobody viewed in that order left out.
    func timesBetween() -> [PathsReport.TimeBetween] {
        zip(pairs, durations).filter { !$0.1.isEmpty }.map { PathsReport.TimeBetween($0.0.from, $0.0.to, micros: $0.1) }
    }
}

extension PathsReport.TimeBetween {
    /// The time between two steps: its percentiles, mean and histogram over `micros`, each
    /// user's time in microseconds (as seconds: the microseconds over a million).
    init(_ from: String, _ to: String, micros: [Int64]) {
        let sorted = Statistics.sorted(micros).map { Double($0) / 1_000_000 }
        self.init(from: from, to: to, users: sorted.count,
                  p50: Statistics.percentile(sorted: sorted, 0.50), p75: Statistics.percentile(sorted: sorted, 0.75),
                  p90: Statistics.percentile(sorted: sorted, 0.90), p95: Statistics.percentile(sorted: sorted, 0.95),
                  mean: Statistics.mean(sorted),
                  histogram: Statistics.histogram(sorted: sorted).map { .init(fromSeconds: $0.from, toSeconds: $0.to, users: $0.count) })
    }

    /// The pairs by their median, slowest first (ties in the given order).
    static func slowest(_ pairs: [Self]) -> [Self] {
        pairs.enumerated().sorted { a, b in
            let pa = a.element.p50 ?? 0, pb = b.element.p50 ?? 0
            return pa != pb ? pa > pb : a.offset < b.offset
        }.map(\.element)
    }

    /// The text table of the `count` slowest pairs (80 columns), under a blank line and its title.
    static func slowestText(_ pairs: [Self], count: Int) -> String {
        guard !pairs.isEmpty else { return "" }
        var out = "\nslowest steps to the next on a lane: first view to the first view of the next\n"
        out += "  " + Format.pad("steps", 46) + Format.pad("users", 7, right: true) + Format.pad("p50", 8, right: true)
            + Format.pad("p90", 8, right: true) + Format.pad("mean", 8, right: true) + "\n"
        for p in slowest(pairs).prefix(count) {
            out += "  " + Format.pad(PathsReport.arrow(p.from, p.to), 46) + Format.pad(String(p.users), 7, right: true)
                + Format.pad(DurationText.compact(p.p50), 8, right: true) + Format.pad(DurationText.compact(p.p90), 8, right: true)
                + Format.pad(DurationText.compact(p.mean), 8, right: true) + "\n"
        }
        return out
    }
}
