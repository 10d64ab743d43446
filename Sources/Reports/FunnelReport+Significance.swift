extension FunnelReport {
    /// Compares each group (`--by`) with the rest of the selection, the users of this report
    /// not in the group: its completion rate, and per step its conversion from eligible. The
    /// p-values of one figure are Benjamini–Hochberg adjusted across the groups.
    mutating func compareGroups() {
        guard var groups, !groups.isEmpty else { return }
        let completion = FunnelReport.adjusted(groups.map { g in
            FunnelReport.comparison(g.report.users.completed, of: g.report.users.started,
                                    within: users.completed, of: users.started)
        })
        for i in groups.indices { groups[i].versusRest = completion[i] }
        for (k, row) in steps.enumerated() {
            let same = groups.map { g in k < g.report.steps.count && g.report.steps[k].step == row.step && g.report.steps[k].lane == row.lane }
            let byStep = FunnelReport.adjusted(groups.indices.map { i in
                guard same[i] else { return nil }
                let r = groups[i].report.steps[k]
                return FunnelReport.comparison(r.eligibleReached, of: r.eligible, within: row.eligibleReached, of: row.eligible)
            })
            for i in groups.indices where same[i] { groups[i].report.steps[k].versusRest = byStep[i] }
        }
        self.groups = groups
    }

    /// `x` of `n` (a group) against the rest of `total` of `all` (the selection).
    static func comparison(_ x: Int, of n: Int, within total: Int, of all: Int) -> Comparison? {
        let restX = total - x, restN = all - n
        guard n >= 0, restN >= 0, x <= n, restX <= restN else { return nil }
        let difference = n > 0 && restN > 0 ? Double(x) / Double(n) - Double(restX) / Double(restN) : nil
        return Comparison(difference: difference, pValue: Statistics.twoProportionPValue(x, of: n, against: restX, of: restN))
    }

    /// Fills in the adjusted p-values of comparisons of the same figure across groups.
    static func adjusted(_ comparisons: [Comparison?]) -> [Comparison?] {
        let adjusted = Statistics.benjaminiHochberg(comparisons.map { $0?.pValue })
        return comparisons.indices.map { i in
            comparisons[i].map { c in Comparison(difference: c.difference, pValue: c.pValue, pValueAdjusted: adjusted[i]) }
        }
    }
}

extension Statistics {
    /// An adjusted p-value below this marks a difference as significant in every format.
    public static let significanceLevel = 0.05
}

extension FunnelReport.Comparison {
    /// The adjusted p-value is below `Statistics.significanceLevel`.
    public var isSignificant: Bool { (pValueAdjusted ?? 1) < Statistics.significanceLevel }

    /// `+5.9 pts` (the difference in points), `—` without one.
    public var points: String {
        Format.points(difference.map { $0 * 100 })
    }

    /// `p < 0.001`, `p = 0.012`; "too few users" without a test.
    public var pText: String {
        pValueAdjusted.map(Format.pValue) ?? "too few users"
    }

    /// The adjusted p-value for a table cell: `<0.001`, `0.012`, `—`; a `*` marks significance.
    public var pCell: String {
        Format.pCell(pValueAdjusted)
    }
}

extension FunnelReport {
    /// In a group's report: the steps whose conversion from eligible differs significantly
    /// from the rest of the selection's, strongest evidence first.
    public var significantSteps: [(row: StepRow, comparison: Comparison)] {
        steps.compactMap { row in row.versusRest.flatMap { $0.isSignificant ? (row, $0) : nil } }
            .sorted { ($0.comparison.pValueAdjusted ?? 1, $0.row.step) < ($1.comparison.pValueAdjusted ?? 1, $1.row.step) }
    }

    /// One sentence on a group against the rest, for text and Markdown: its completion, then
    /// the steps that differ (adjusted p below the significance level); step names through
    /// `shown` (escaped for the output).
    func versusRestText(_ group: Group, shown: (String) -> String = { $0 }) -> [String] {
        var out: [String] = []
        if let c = group.versusRest {
            out.append("against the rest of the selection: completion \(c.points) (\(c.pText)\(c.isSignificant ? ", significant" : ""))")
        }
        let steps = group.report.significantSteps
        if !steps.isEmpty {
            out.append("steps that differ from the rest (of eligible, adjusted p < \(Statistics.significanceLevel)): "
                + steps.map { "\(shown($0.row.step)) \($0.comparison.points) (\($0.comparison.pText))" }.joined(separator: "; "))
        }
        return out
    }
}
