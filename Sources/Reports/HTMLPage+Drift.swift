extension HTMLPage {
    /// The drift section: where the logs and the definition disagree, with the evidence and
    /// the fix of each finding; nothing when they agree.
    func drift(_ r: FunnelReport) -> String {
        guard let drift = r.drift, !drift.isEmpty else { return "" }
        var out = "<section class=\"card drift\" aria-labelledby=\"drift-h\">\n"
        out += "<h2 id=\"drift-h\">Drift: the logs and the definition disagree</h2>\n"
        out += "<p class=\"hint\">Every user is still counted: users on no lane have a block of their own below. "
        out += "<code>funnel flows drift --flow \(HTML.escape(r.flow))</code> lists the same findings.</p>\n<ul>\n"
        for d in drift {
            out += "<li data-kind=\"\(HTML.escape(d.kind))\"><b>\(HTML.escape(d.summary))</b><br>\n"
            out += "<span class=\"muted\">\(HTML.escape(d.evidence))</span><br>\n"
            out += "fix: \(HTML.escape(d.fix))</li>\n"
        }
        out += "</ul>\n</section>\n"
        return out
    }
}
