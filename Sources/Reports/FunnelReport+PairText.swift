import FunnelModel

extension FunnelReport {
    /// Two breakdowns at once, in 80 columns: one row per pair of values that has users (the
    /// first value shown where it changes), its completion and its completion against the
    /// rest. Each pair's full report is in the JSON and the HTML.
    func pairTable(_ groups: [Group]) -> String {
        let names = dimensions
        let widths = [12, 12, 8, 10, 7, 8, 8, 9]
        let titles = names.prefix(2) + ["started", "completed", "rate", "p50", "vs rest", "p adj"]
        var out = ""
        for (k, (t, w)) in zip(titles, widths).enumerated() { out += Format.pad(t, w, right: k > 1) }
        out += "\n"
        var previous: String?
        for g in groups {
            let r = g.report
            let time = names.map { ReportQuery.Dimension(parsing: $0)?.bucketSeconds != nil }
            let values = names.indices.map { i in
                (g.values[names[i]] ?? "") + (time[i] && g.settled == false ? "~" : "")
            }
            let first = values.first == previous ? "" : values.first ?? ""
            previous = values.first
            let cells = [first, values.dropFirst().first ?? "", String(r.users.started), String(r.users.completed),
                         Format.percent(r.completionRate), DurationText.compact(r.timeToCompleteSeconds.p50),
                         (g.versusRest?.points ?? "—").replacingOccurrences(of: " pts", with: ""), g.versusRest?.pCell ?? "—"]
            for (k, (c, w)) in zip(cells, widths).enumerated() { out += Format.pad(c, w, right: k > 1) }
            out += "\n"
        }
        if groups.contains(where: { $0.settled == false }) {
            out += "~ unsettled: its bucket ended less than the idle window before as-of, so its\n"
            out += "  users may still complete\n"
        }
        return out + "one row per pair of values that has users\n" + FunnelReport.versusRestLegend
    }

    /// The pairs whose completion or steps differ significantly from the rest, in words.
    func pairFindings(_ groups: [Group]) -> String {
        var out = "\n"
        var any = false
        for g in groups {
            let lines = versusRestText(g)
            guard g.versusRest?.isSignificant == true || !g.report.significantSteps.isEmpty else { continue }
            any = true
            out += Format.wrapped(heading(g), indent: 0)
            for line in lines { out += Format.wrapped(line, indent: 2) }
        }
        if !any { out += "no pair differs significantly from the rest of the selection\n" }
        out += "each pair's full report: --format json, markdown or html\n"
        return out
    }
}
