import FunnelModel

extension HTMLPage {
    /// `--compare`: the two periods side by side, the completion difference with its interval
    /// and test, and each step's conversion from eligible in both.
    func comparison(_ r: FunnelReport) -> String {
        guard let c = r.periodComparison else { return "" }
        let (current, compared) = r.periodLabels(c)
        var out = "<section class=\"card compare\" aria-labelledby=\"cmp-h\">\n"
        out += "<h2 id=\"cmp-h\">This period \(HTML.escape(current)) against \(HTML.escape(compared))</h2>\n"
        out += "<p class=\"hint\">Completion \(HTML.escape(c.completionDifference.pointsText)) "
        out += "(\(HTML.escape(c.completionDifference.intervalText)), \(HTML.escape(c.completionDifference.pText)), pooled two-proportion z-test)."
        if !c.settled || !c.currentSettled {
            out += " <span class=\"muted\">~ unsettled: the period ended less than the idle window before as-of, so its users may still complete.</span>"
        }
        out += "</p>\n<div class=\"scroll\"><table>\n<thead><tr><th></th><th class=\"n\">this period</th><th class=\"n\">compared</th><th class=\"n\">difference</th><th class=\"n\">p</th></tr></thead>\n<tbody>\n"
        func row(_ name: String, _ cells: [String]) -> String {
            "<tr><th>\(name)</th>" + cells.map { "<td class=\"n\">\(HTML.escape($0))</td>" }.joined() + "</tr>\n"
        }
        out += row("started", [HTML.count(r.users.started), HTML.count(c.users.started), "", ""])
        out += row("completed", [HTML.count(r.users.completed), HTML.count(c.users.completed), "", ""])
        out += row("completion", [Format.percent(r.completionRate), Format.percent(c.completionRate),
                                  c.completionDifference.pointsText, c.completionDifference.pCell])
        for s in c.steps {
            let name = "<code>\(HTML.escape(s.step))</code>" + (s.lane.map { " <span class=\"muted\">\(HTML.escape($0))</span>" } ?? "")
            out += row(name, [Format.percent(s.currentConversionFromEligible), "\(Format.percent(s.conversionFromEligible)) of \(HTML.count(s.eligible))",
                              s.difference.pointsText, s.difference.pCell])
        }
        out += "</tbody></table></div>\n</section>\n"
        return out
    }
}
