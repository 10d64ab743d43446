import Foundation

extension HTMLPage {
    /// Attribute values shown per drop-off: the strongest evidence, every significant one.
    static let explainRows = 8
    /// Last events shown per drop-off.
    static let explainLastEvents = 5

    /// "What explains the top drop-offs": per explained step, the attribute values with the
    /// strongest evidence of a different drop rate, and what the users who dropped there did
    /// last; nothing when the report carries no explanations.
    func explanations(_ r: FunnelReport) -> String {
        guard let explanations = r.explanations, !explanations.isEmpty else { return "" }
        var out = "<section class=\"card explain\" aria-labelledby=\"explain-h\">\n"
        out += "<h2 id=\"explain-h\">What explains the top drop-offs</h2>\n"
        out += "<p class=\"hint\">Among the eligible users who reached each step: the drop rate of each attribute value "
        out += "against the other users compared, in points with its 95% interval, and the two-proportion z-test's p-value "
        out += "adjusted (Benjamini–Hochberg) across the step's values; shaded rows are below "
        out += "\(Statistics.significanceLevel). <code>funnel explain --flow \(HTML.escape(r.flow)) --step STEP</code> "
        out += "lists every value.</p>\n"
        for (i, e) in explanations.enumerated() { out += explanation(e, rank: i + 1) }
        out += "</section>\n"
        return out
    }

    func explanation(_ e: DropoffExplanation, rank: Int) -> String {
        var out = "<article class=\"explained\" data-step=\"\(HTML.escape(e.step))\" data-lane=\"\(HTML.escape(e.lane ?? ""))\">\n"
        out += "<h3><span class=\"rank\">#\(rank)</span> <code>\(HTML.escape(e.step))</code>"
        if let lane = e.lane { out += " <span class=\"muted\">lane \(HTML.escape(lane))</span>" }
        out += " · <b>\(HTML.count(e.users.droppedCompared))</b> of \(HTML.count(e.users.compared)) users compared dropped there"
        if let rate = e.dropRate { out += " (\(Format.percent(rate)))" }
        out += "</h3>\n"
        let shown = e.attributes.enumerated().filter { $0.offset < Self.explainRows || $0.element.versusRest.isSignificant }.map(\.element)
        if e.users.droppedCompared > 0 && !shown.isEmpty {
            let widest = max(0.01, shown.compactMap(\.versusRest.difference).map(abs).max() ?? 0.01)
            out += "<div class=\"scroll\"><table class=\"drivers\">\n<thead><tr><th>attribute value</th><th class=\"n\">users</th>"
            out += "<th class=\"n\">dropped</th><th class=\"n\">drop rate</th><th>vs rest</th><th class=\"n\">95% CI (pts)</th>"
            out += "<th class=\"n\">p adjusted</th></tr></thead>\n<tbody>\n"
            for a in shown {
                let difference = a.versusRest.difference ?? 0
                out += "<tr\(a.versusRest.isSignificant ? " class=\"top\"" : "") data-kind=\"\(HTML.escape(a.kind))\">"
                out += "<td><code>\(HTML.escape(a.label))</code></td><td class=\"n\">\(HTML.count(a.users))</td>"
                out += "<td class=\"n\">\(HTML.count(a.dropped))</td><td class=\"n\">\(Format.percent(a.dropRate))</td>"
                out += "<td><span class=\"dbar\" style=\"display:inline-block;width:90px;vertical-align:middle\">"
                out += "<i style=\"width:\(HTML.num(100 * max(0, difference) / widest))%\"></i></span> "
                out += "\(HTML.escape(a.versusRest.points))</td>"
                out += "<td class=\"n\">\(HTML.escape(a.intervalCell))</td><td class=\"n\">\(HTML.escape(a.pCell))</td></tr>\n"
            }
            out += "</tbody></table></div>\n"
            if e.attributes.count > shown.count {
                out += "<p class=\"muted\">\(e.attributes.count - shown.count) more values, none significant.</p>\n"
            }
        } else {
            out += "<p class=\"muted\">Nobody eligible dropped there: no attribute can explain it.</p>\n"
        }
        if !e.lastEvents.isEmpty {
            out += "<p>What the \(HTML.count(e.users.dropped)) users who dropped there did last on the step:</p>\n<ol class=\"drops\">\n"
            for l in e.lastEvents.prefix(Self.explainLastEvents) {
                out += "<li><span class=\"muted\">\(Format.percent(l.share, digits: 0))</span><span class=\"where\"><code>\(HTML.escape(l.text))</code></span>"
                out += "<span class=\"dbar\"><i style=\"width:\(HTML.num(100 * l.share))%\"></i></span>"
                out += "<span class=\"dn\"><b>\(HTML.count(l.users))</b> users · \(Format.percent(l.share))</span></li>\n"
            }
            out += "</ol>\n"
        }
        out += "</article>\n"
        return out
    }
}
