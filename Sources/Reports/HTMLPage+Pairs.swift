import FunnelModel

extension HTMLPage {
    /// The time from each step to the next on a lane, slowest median first, as `funnel paths`
    /// computes it; nothing when nobody viewed two such steps in order.
    func pairs(_ r: FunnelReport) -> String {
        guard let pairs = r.adjacentPairs, !pairs.isEmpty else { return "" }
        var out = "<section class=\"card tables\" aria-labelledby=\"pairs-h\">\n<h2 id=\"pairs-h\">Time to the next step</h2>\n"
        out += "<p class=\"hint\">Every two steps one after the other on a lane, slowest median first: from the first view "
        out += "of a step to the first view of the next after it (as <code>funnel paths --from --to</code>).</p>\n"
        out += "<div class=\"scroll\"><table>\n<thead><tr><th>from</th><th>to</th>"
        for h in ["users", "p50", "p75", "p90", "mean"] { out += "<th class=\"n\">\(h)</th>" }
        out += "</tr></thead>\n<tbody>\n"
        for p in PathsReport.TimeBetween.slowest(pairs) {
            out += "<tr><td><code>\(HTML.escape(p.from))</code></td><td><code>\(HTML.escape(p.to))</code></td>"
            for c in [HTML.count(p.users), DurationText.compact(p.p50), DurationText.compact(p.p75), DurationText.compact(p.p90),
                      DurationText.compact(p.mean)] {
                out += "<td class=\"n\">\(HTML.escape(c))</td>"
            }
            out += "</tr>\n"
        }
        return out + "</tbody></table></div>\n</section>\n"
    }
}
