import FunnelModel

extension ReportSelection {
    /// A page's header: what it is (`page`, e.g. `Onboarding funnel`) of which flow, and the
    /// selection as a list; `extra` (list items, already escaped) goes before as-of, and the
    /// idle window is shown as `idle` says. Every name is escaped.
    func htmlHeader(page: String, extra: String = "", idle: String) -> String {
        var out = "<header class=\"top\">\n<p class=\"eyebrow\">\(page) · flow <code>\(HTML.escape(flow))</code></p>\n"
        out += "<h1>\(HTML.escape(flowTitle))</h1>\n<ul class=\"scope\">\n"
        out += "<li><span>cohort</span> \(cohort.map { "<b>\(HTML.escape($0))</b>" } ?? "all started users")</li>\n"
        if !filters.isEmpty {
            out += "<li><span>where</span> " + filters.map { "<code>\(HTML.escape($0))</code>" }.joined(separator: " and ") + "</li>\n"
        }
        if let since { out += "<li><span>started since</span> \(HTML.escape(since))</li>\n" }
        if let until { out += "<li><span>started before</span> \(HTML.escape(until))</li>\n" }
        out += extra
        out += "<li><span>as of</span> <b>\(HTML.escape(asOf))</b></li>\n"
        out += "<li><span>idle window</span> \(HTML.escape(idle))</li>\n"
        return out + "</ul>\n</header>\n"
    }
}
