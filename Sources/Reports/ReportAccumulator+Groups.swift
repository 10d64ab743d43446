import FunnelModel
import Journeys

extension ReportAccumulator {
    /// Counts the journey in `scratch` in each group it belongs to: one per value of the one
    /// dimension, or one per pair of values of two (`keys`: a journey's values per dimension).
    mutating func addToGroups(_ keys: [[String]]) {
        for key in keys.count == 1 ? keys[0].map({ [$0] }) : ReportAccumulator.combinations(keys) {
            if groups[key] == nil { seen.append(key) }
            groups[key, default: Figures(layout)].add(scratch, layout)
        }
    }

    /// Every way to pick one value of each dimension, the first dimension's values outermost.
    static func combinations(_ values: [[String]]) -> [[String]] {
        values.reduce([[]]) { picked, next in picked.flatMap { p in next.map { p + [$0] } } }
    }

    /// The groups in their stable order. One dimension: its values (`valueOrder`, defined ones
    /// even when empty). Two: the pairs that have users, by the first value, then the second.
    func groupOrder() -> [[String]] {
        let orders = dimensions.indices.map { i in
            var values: [String] = []
            for key in seen where !values.contains(key[i]) { values.append(key[i]) }
            return valueOrder(dimensions[i], seen: values)
        }
        let all = ReportAccumulator.combinations(orders)
        return dimensions.count == 1 ? all : all.filter { groups[$0] != nil }
    }

    /// The keys of the groups a journey given by its report facts belongs to under `by`.
    func groupKeys(_ f: JourneyFacts, by: ReportQuery.Dimension) -> [String] {
        let definition = builder.definition
        switch by {
        case .cohort:
            let ids = definition.cohorts.indices.filter { $0 < 64 && f.cohorts & (1 << UInt64($0)) != 0 }.map { definition.cohorts[$0].id }
            return ids.isEmpty ? ["(none)"] : ids
        case .lane: return [f.lane >= 0 && f.lane < definition.lanes.count ? definition.lanes[f.lane].id : "(undecided)"]
        case .appVersion: return [f.appVersion ?? "(unknown)"]
        case .platform: return [f.platform ?? "(unknown)"]
        case .flag(let name):
            let i = definition.flags.firstIndex { $0.id == name } ?? 64
            return [i < 64 && f.flagsOn & (1 << UInt64(i)) != 0 ? "on" : "off"]
        case .day, .week: return [by.bucket(Timestamp(micros: f.startedAt ?? f.firstEventAt)) ?? "?"]
        }
    }
}
