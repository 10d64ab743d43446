import Foundation
import FunnelModel

extension PathsReport {
    /// One self-contained HTML page: inline CSS and inline SVG, no script, nothing fetched,
    /// as the report's page. `command`: the command line, shown in the footer (escaped).
    public func html(command: String) -> String {
        PathsPage(report: self, command: command).render()
    }
}

/// The paths page: the moves drawn as arcs between the steps (forward and skip on the left,
/// back and off-path on the right, each kind in its colour, width by users), then the tables.
struct PathsPage {
    let report: PathsReport
    let command: String

    /// The most moves drawn in the diagram (most users first); every one is in the tables.
    static let drawnMoves = 120
    /// The diagram's geometry, in SVG units.
    static let rowHeight = 34.0, boxLeft = 380.0, boxWidth = 240.0, top = 16.0, width = 1000.0

    static let extraCSS = """
    svg.paths { width: 100%; height: auto; display: block; font-family: inherit; }
    .paths .node rect { fill: var(--elig); stroke: #c4cad2; }
    .paths .node text { fill: var(--ink); font-size: 13px; }
    .paths .node text.n { fill: var(--muted); font-size: 11px; }
    .paths .node.out rect { fill: #fff; stroke-dasharray: 4 3; }
    .paths path { fill: none; stroke-linecap: round; opacity: .55; }
    .paths .forward, .sw.forward { stroke: var(--bar); background: var(--bar); }
    .paths .skip, .sw.skipmove { stroke: #2f7fb8; background: #2f7fb8; }
    .paths .back, .sw.back { stroke: var(--accent); background: var(--accent); }
    .paths .off_path, .sw.off_path { stroke: #8e44ad; background: #8e44ad; }
    .paths .off_path { stroke-dasharray: 6 4; }

    """

    func render() -> String {
        let r = report
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<meta name=\"generator\" content=\"funnel\">\n"
        out += "<title>\(HTML.escape("\(r.selection.flowTitle) paths · as of \(r.selection.asOf)"))</title>\n"
        out += "<style>\n\(HTMLPage.css)\(Self.extraCSS)</style>\n</head>\n<body>\n<main>\n"
        out += header() + kpis() + diagram() + movesTable() + exitsTable() + returnsTable() + pairsTable() + timeBetween()
        out += "<footer>\n<p class=\"provenance\">Made by</p>\n<pre class=\"command\">\(HTML.escape(command))</pre>\n"
        out += "<p>Definitions: docs/paths.md.</p>\n</footer>\n</main>\n</body>\n</html>\n"
        return out
    }

    func header() -> String {
        report.selection.htmlHeader(page: "Onboarding paths", idle: DurationText.spoken(report.selection.idleSeconds))
    }

    func kpis() -> String {
        let r = report
        let offPathUsers = r.findings.map(\.users).max() ?? 0
        var out = "<div class=\"kpis\">\n"
        for (label, value, sub) in [("started", r.users.started, "users in the selection"),
                                    ("viewed a step", r.users.viewed, "of the started users"),
                                    ("moved", r.users.moved, "between two steps at least once"),
                                    ("largest finding", offPathUsers, "users of the most made move off the path")] {
            out += "<div class=\"kpi\"><div class=\"label\">\(label)</div><div class=\"value\">\(HTML.count(value))</div>"
            out += "<div class=\"sub\">\(sub)</div></div>\n"
        }
        return out + "</div>\n"
    }

    /// The steps in flow order, the moves as arcs between them.
    func diagram() -> String {
        let r = report
        guard !r.steps.isEmpty else { return "" }
        var row: [String: Int] = [:]
        for (i, s) in r.steps.enumerated() { row[s.step] = i }
        let height = Self.top * 2 + Double(r.steps.count) * Self.rowHeight
        let drawn = r.transitions.sorted { $0.users > $1.users }.prefix(Self.drawnMoves)
        let most = Double(drawn.map(\.users).max() ?? 1)
        var out = "<section class=\"card\" aria-labelledby=\"paths-h\">\n<h2 id=\"paths-h\">How users moved</h2>\n"
        out += "<p class=\"hint\">Each arc is a move from one step to another, as wide as the users who made it "
        out += "(widest = \(HTML.count(Int(most))) users). "
        out += "<span class=\"key\"><i class=\"sw forward\"></i>forward</span> <span class=\"key\"><i class=\"sw skipmove\"></i>skip</span> "
        out += "(left); <span class=\"key\"><i class=\"sw back\"></i>back</span> <span class=\"key\"><i class=\"sw off_path\"></i>off path</span> (right)."
        if r.transitions.count > drawn.count { out += " The \(drawn.count) moves with the most users are drawn; every move is in the table below." }
        out += "</p>\n<svg class=\"paths\" viewBox=\"0 0 \(HTML.num(Self.width)) \(HTML.num(height))\" role=\"img\" "
        out += "aria-label=\"moves between the steps of \(HTML.escape(r.selection.flow))\">\n"
        for m in drawn.reversed() {
            guard let a = row[m.from], let b = row[m.to] else { continue }
            let ya = y(a), yb = y(b)
            let right = m.kind == .back || m.kind == .offPath
            let x = right ? Self.boxLeft + Self.boxWidth : Self.boxLeft
            let reach = min(Self.boxLeft - 20, 26 + 24 * Double(abs(b - a)))
            let cx = right ? x + reach : x - reach
            let w = max(1.2, 14 * Double(m.users) / most)
            out += "<path class=\"\(m.kind.rawValue)\" stroke-width=\"\(HTML.num(w))\" "
            out += "d=\"M\(HTML.num(x)) \(HTML.num(ya)) C\(HTML.num(cx)) \(HTML.num(ya)) \(HTML.num(cx)) \(HTML.num(yb)) \(HTML.num(x)) \(HTML.num(yb))\">"
            out += "<title>\(HTML.escape("\(m.from) → \(m.to): \(m.kind.rawValue), \(m.users) users, \(m.moves) moves"))</title></path>\n"
        }
        for (i, s) in r.steps.enumerated() {
            let top = y(i) - Self.rowHeight / 2 + 4
            out += "<g class=\"node\(s.inFlow ? "" : " out")\"><rect x=\"\(HTML.num(Self.boxLeft))\" y=\"\(HTML.num(top))\" "
            out += "width=\"\(HTML.num(Self.boxWidth))\" height=\"\(HTML.num(Self.rowHeight - 8))\" rx=\"5\"/>"
            out += "<text x=\"\(HTML.num(Self.boxLeft + 8))\" y=\"\(HTML.num(y(i) + 4))\">\(HTML.escape(TerminalText.fit(s.step, width: 24)))</text>"
            out += "<text class=\"n\" x=\"\(HTML.num(Self.boxLeft + Self.boxWidth - 8))\" y=\"\(HTML.num(y(i) + 4))\" text-anchor=\"end\">"
            out += "\(HTML.count(s.users))</text><title>\(HTML.escape(s.step)): \(s.users) users viewed it</title></g>\n"
        }
        return out + "</svg>\n</section>\n"
    }

    /// The vertical centre of the `i`th step's box.
    func y(_ i: Int) -> Double { Self.top + (Double(i) + 0.5) * Self.rowHeight }

    /// A card with a heading, a hint and a table: `headers` with whether the column holds
    /// numbers (right-aligned), each row's cells as HTML and whether it is marked.
    func tableCard(id: String, title: String, hint: String?, headers: [(String, Bool)],
                   rows: [(cells: [String], marked: Bool)]) -> String {
        var out = "<section class=\"card tables\" aria-labelledby=\"\(id)-h\">\n<h2 id=\"\(id)-h\">\(title)</h2>\n"
        if let hint { out += "<p class=\"hint\">\(hint)</p>\n" }
        out += "<div class=\"scroll\"><table>\n<thead><tr>"
        for (name, number) in headers { out += number ? "<th class=\"n\">\(name)</th>" : "<th>\(name)</th>" }
        out += "</tr></thead>\n<tbody>\n"
        for row in rows {
            out += row.marked ? "<tr class=\"top\">" : "<tr>"
            for (cell, (_, number)) in zip(row.cells, headers) { out += number ? "<td class=\"n\">\(cell)</td>" : "<td>\(cell)</td>" }
            out += "</tr>\n"
        }
        return out + "</tbody></table></div>\n</section>\n"
    }

    /// A name from the data, as code.
    func code(_ name: String) -> String { "<code>\(HTML.escape(name))</code>" }

    func movesTable() -> String {
        let r = report
        guard !r.transitions.isEmpty else { return "" }
        let rows = (r.findings + r.transitions.filter { $0.kind == .forward }).map { m in
            let on = r.movedOn(m.from)
            return (cells: [code(m.from), code(m.to), m.kind.rawValue, HTML.count(m.users), HTML.count(m.moves),
                            Format.percent(on == 0 ? nil : Double(m.users) / Double(on))], marked: m.kind != .forward)
        }
        return tableCard(id: "moves", title: "Moves", hint: "Moves off the expected path first, most users first; then every move by the step left.",
                         headers: [("from", false), ("to", false), ("kind", false), ("users", true), ("moves", true),
                                   ("share of those who moved on", true)], rows: rows)
    }

    func exitsTable() -> String {
        guard !report.exits.isEmpty else { return "" }
        let rows = report.exits.map { e in
            let last = e.abandonedLastEvents.prefix(3).map { "\(code($0.text)) \(Format.percent($0.share))" }
            return (cells: [code(e.step), HTML.count(e.users), HTML.count(e.completed), HTML.count(e.inProgress),
                            HTML.count(e.abandoned), last.joined(separator: "<br>")], marked: false)
        }
        return tableCard(id: "exits", title: "Where users last viewed a step", hint: nil,
                         headers: [("step", false), ("users", true), ("completed", true), ("in progress", true), ("abandoned", true),
                                   ("what the abandoned did last", false)], rows: rows)
    }

    func returnsTable() -> String {
        let kinds = PathsReport.ReturnKind.allCases
        let hint = "Users who left for more than the idle window and then viewed a step again, by the step they left."
        guard !report.returns.isEmpty else {
            return "<section class=\"card tables\" aria-labelledby=\"returns-h\">\n<h2 id=\"returns-h\">Returns</h2>\n"
                + "<p class=\"hint\">\(hint)</p>\n<p class=\"empty\">Nobody came back after the idle window.</p>\n</section>\n"
        }
        let rows = report.returns.map { ret in
            (cells: [code(ret.step), HTML.count(ret.users), HTML.count(ret.returns)] + kinds.map { HTML.count(ret.cameBack[$0.rawValue] ?? 0) },
             marked: false)
        }
        return tableCard(id: "returns", title: "Returns", hint: hint,
                         headers: [("step left", false), ("users", true), ("returns", true)]
                            + kinds.map { ($0.rawValue.replacingOccurrences(of: "_", with: " "), true) }, rows: rows)
    }

    func pairsTable() -> String {
        guard !report.adjacentPairs.isEmpty else { return "" }
        let rows = report.slowestPairs.map { p in
            (cells: [code(p.from), code(p.to), HTML.count(p.users), DurationText.compact(p.p50), DurationText.compact(p.p75),
                     DurationText.compact(p.p90), DurationText.compact(p.mean)], marked: false)
        }
        return tableCard(id: "pairs", title: "Time to the next step", hint: "Every two steps one after the other on a lane, slowest "
                            + "median first: from the first view of a step to the first view of the next after it.",
                         headers: [("from", false), ("to", false), ("users", true), ("p50", true), ("p75", true), ("p90", true),
                                   ("mean", true)], rows: rows)
    }

    func timeBetween() -> String {
        guard let b = report.timeBetween else { return "" }
        let hint = "\(HTML.count(b.users)) users: p50 \(DurationText.compact(b.p50)), p75 \(DurationText.compact(b.p75)), "
            + "p90 \(DurationText.compact(b.p90)), p95 \(DurationText.compact(b.p95)), mean \(DurationText.compact(b.mean))."
        let rows = b.histogram.map { bin in
            (cells: [DurationText.compact(bin.fromSeconds), DurationText.compact(bin.toSeconds), HTML.count(bin.users)], marked: false)
        }
        return tableCard(id: "between", title: "Time from \(code(b.from)) to \(code(b.to))", hint: hint,
                         headers: [("from", false), ("to", false), ("users", true)], rows: rows)
    }
}
