extension HTMLPage {
    /// `--by day` / `--by week`: completion rate per bucket as a line over its 95 % interval
    /// band. Unsettled buckets (users may still complete) are hollow points on a dashed line,
    /// so a recent bucket is never read as a drop.
    func trend(_ groups: [FunnelReport.Group], by: String) -> String {
        let points = groups.enumerated().compactMap { i, g -> (i: Int, g: FunnelReport.Group, rate: Double)? in
            g.report.completionRate.map { (i, g, $0) }
        }
        var out = "<section class=\"card trend\" aria-labelledby=\"trend-h\">\n"
        out += "<h2 id=\"trend-h\">Completion by \(HTML.escape(by))</h2>\n"
        guard points.count >= 2 else {
            return out + "<p class=\"muted empty\">Fewer than two \(HTML.escape(by)) buckets with users: no trend to draw.</p>\n</section>\n"
        }
        out += "<p class=\"hint\">Completion rate of the users who started in each \(HTML.escape(by)) (UTC), with its 95% interval. "
        out += "Hollow points on a dashed line are unsettled: the bucket ended less than the idle window before as-of, "
        out += "so some of its users may still complete.</p>\n"
        let w = 760.0, h = 240.0, left = 44.0, right = 16.0, top = 16.0, bottom = 34.0
        let plotW = w - left - right, plotH = h - top - bottom
        let n = max(1, groups.count - 1)
        // Points sit inset from the plot's edges, so that each date centres under its point.
        let inset = 40.0
        func x(_ i: Int) -> Double { left + inset + (plotW - 2 * inset) * Double(i) / Double(n) }
        func y(_ r: Double) -> Double { top + plotH * (1 - r) }
        out += "<svg class=\"trendchart\" viewBox=\"0 0 \(HTML.num(w)) \(HTML.num(h))\" role=\"img\" "
        out += "aria-label=\"Completion rate by \(HTML.escape(by))\" data-buckets=\"\(groups.count)\" font-size=\"11\">\n"
        out += "<title>Completion rate by \(HTML.escape(by)), with 95% intervals</title>\n"
        for r in [0.0, 0.25, 0.5, 0.75, 1.0] {
            out += "<line class=\"grid\" x1=\"\(HTML.num(left))\" x2=\"\(HTML.num(w - right))\" y1=\"\(HTML.num(y(r)))\" y2=\"\(HTML.num(y(r)))\"/>"
            out += "<text class=\"axis\" x=\"\(HTML.num(left - 6))\" y=\"\(HTML.num(y(r) + 4))\" text-anchor=\"end\">\(Format.percent(r, digits: 0))</text>\n"
        }
        // The interval band: upper edge left to right, lower edge back.
        let band = points.compactMap { p in p.g.report.completionRateCI95.map { (p.i, $0) } }
        if band.count >= 2 {
            let upper = band.map { "\(HTML.num(x($0.0))),\(HTML.num(y($0.1.high)))" }
            let lower = band.reversed().map { "\(HTML.num(x($0.0))),\(HTML.num(y($0.1.low)))" }
            out += "<polygon class=\"band\" points=\"\((upper + lower).joined(separator: " "))\"/>\n"
        }
        for (a, b) in zip(points, points.dropFirst()) {
            let unsettled = a.g.settled == false || b.g.settled == false
            out += "<line class=\"trendline\(unsettled ? " unsettled" : "")\" x1=\"\(HTML.num(x(a.i)))\" y1=\"\(HTML.num(y(a.rate)))\" "
            out += "x2=\"\(HTML.num(x(b.i)))\" y2=\"\(HTML.num(y(b.rate)))\"/>\n"
        }
        for p in points {
            let unsettled = p.g.settled == false
            let ci = p.g.report.completionRateCI95.map { " (95% CI \(Format.percent($0.low))–\(Format.percent($0.high)))" } ?? ""
            out += "<circle class=\"pt\(unsettled ? " unsettled" : "")\" cx=\"\(HTML.num(x(p.i)))\" cy=\"\(HTML.num(y(p.rate)))\" r=\"4\" "
            out += "data-bucket=\"\(HTML.escape(p.g.value))\"><title>\(HTML.escape(p.g.value)): \(Format.percent(p.rate)) of "
            out += "\(HTML.count(p.g.report.users.started)) started\(HTML.escape(ci))\(unsettled ? ", unsettled" : "")</title></circle>\n"
        }
        let axisY = top + plotH
        out += "<line class=\"axisline\" x1=\"\(HTML.num(left))\" x2=\"\(HTML.num(w - right))\" y1=\"\(HTML.num(axisY))\" y2=\"\(HTML.num(axisY))\"/>\n"
        let every = max(1, (groups.count + 6) / 7)
        for (i, g) in groups.enumerated() where i % every == 0 || i == groups.count - 1 {
            out += "<text class=\"axis\" x=\"\(HTML.num(x(i)))\" y=\"\(HTML.num(axisY + 16))\" text-anchor=\"middle\">\(HTML.escape(g.value))</text>\n"
        }
        out += "</svg>\n</section>\n"
        return out
    }
}
