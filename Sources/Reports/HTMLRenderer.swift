import Foundation
import FunnelModel

extension FunnelReport {
    /// One self-contained HTML page: inline CSS and inline SVG, no script, nothing fetched from
    /// anywhere, so it works offline and can be attached to an email.
    ///
    /// - Parameters:
    ///   - command: the command line that produced the page, shown in the footer (escaped).
    ///   - generatedAt: when the page was made, or nil to leave it out (reproducible output).
    public func html(command: String, generatedAt: String?) -> String {
        HTMLPage(report: self, command: command, generatedAt: generatedAt).render()
    }
}

struct HTMLPage {
    let report: FunnelReport
    let command: String
    let generatedAt: String?

    typealias Row = FunnelReport.StepRow

    func render() -> String {
        let r = report
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<meta name=\"generator\" content=\"funnel\">\n"
        out += "<title>\(HTML.escape(titleText))</title>\n<style>\n\(Self.css)</style>\n</head>\n<body>\n<main>\n"
        out += header()
        out += headline(r)
        out += comparison(r)
        out += drift(r)
        if let groups = r.groups, let by = r.by {
            if !r.isPairs && groups.contains(where: { $0.settled != nil }) { out += trend(groups, by: by) }
            out += breakdown(groups, by: by)
        }
        let scales = ChartScales.covering([r])
        out += "<section class=\"card\" aria-labelledby=\"funnel-h\">\n<h2 id=\"funnel-h\">The funnel, step by step</h2>\n"
        out += "<p class=\"hint\">Bars are users who reached the step, on one scale for the whole page "
        out += "(full width = \(HTML.count(scales.users)) users). "
        out += "<span class=\"key\"><i class=\"sw reached\"></i>reached</span> "
        out += "<span class=\"key\"><i class=\"sw drop\"></i>dropped here</span> "
        out += "<span class=\"key\"><i class=\"sw elig\"></i>eligible</span> "
        out += "<span class=\"key\"><i class=\"sw skip\"></i>passed over by condition or flag</span></p>\n"
        out += funnel(r, scale: scales.users, compact: false)
        out += "</section>\n"
        out += dropoffs(r)
        out += pairs(r)
        out += explanations(r)
        out += "<section class=\"card\" aria-labelledby=\"ttc-h\">\n<h2 id=\"ttc-h\">Time to complete</h2>\n"
        out += timeSummary(r)
        out += histogram(r, scales: scales, compact: false)
        out += "</section>\n"
        out += tables(r)
        out += footer()
        out += "</main>\n</body>\n</html>\n"
        return out
    }

    // MARK: header and headline

    var titleText: String {
        var t = "\(report.flowTitle) funnel"
        if let cohort = report.cohort { t += " · \(cohort)" }
        return t + " · as of \(report.asOf)"
    }

    func header() -> String {
        let by = report.by != nil ? "<li><span>by</span> <b>\(HTML.escape(report.byTitle))</b></li>\n" : ""
        return report.selection.htmlHeader(page: "Onboarding funnel", extra: by, idle: idleText(report.idleSeconds))
    }

    func share(_ n: Int, of total: Int) -> String {
        total == 0 ? "—" : Format.percent(Double(n) / Double(total))
    }

    func headline(_ r: FunnelReport) -> String {
        let u = r.users
        var out = "<section class=\"kpis\" aria-label=\"Headline figures\">\n"
        func kpi(_ label: String, _ value: String, _ sub: String, cls: String = "") -> String {
            "<div class=\"kpi \(cls)\"><div class=\"label\">\(label)</div><div class=\"value\">\(value)</div><div class=\"sub\">\(sub)</div></div>\n"
        }
        out += kpi("Started", HTML.count(u.started), "users in this report")
        out += kpi("Completed", HTML.count(u.completed), share(u.completed, of: u.started) + " of started")
        out += kpi("In progress", HTML.count(u.inProgress), share(u.inProgress, of: u.started) + " · active within the idle window")
        out += kpi("Abandoned", HTML.count(u.abandoned), share(u.abandoned, of: u.started) + " of started", cls: "warn")
        var rateSub = "95% CI "
        if let ci = r.completionRateCI95 {
            rateSub += "\(Format.percent(ci.low))–\(Format.percent(ci.high))"
        } else {
            rateSub += "—"
        }
        rateSub += rateBar(r.completionRate, r.completionRateCI95)
        out += kpi("Completion rate", Format.percent(r.completionRate), rateSub, cls: "rate")
        let t = r.timeToCompleteSeconds
        out += kpi("Time to complete", "<span class=\"q\">p50</span> " + HTML.escape(DurationText.compact(t.p50)),
                   "<span class=\"q\">p90</span> \(HTML.escape(DurationText.compact(t.p90))) · \(HTML.count(t.count)) completed")
        out += "</section>\n"
        return out
    }

    /// A small bar: the rate, with the confidence interval as a whisker.
    func rateBar(_ rate: Double?, _ ci: FunnelReport.Interval?) -> String {
        guard let rate else { return "" }
        var s = "<span class=\"ratebar\" role=\"img\" aria-label=\"completion rate \(Format.percent(rate))\">"
        s += "<i class=\"fill\" style=\"width:\(HTML.num(100 * rate))%\"></i>"
        if let ci {
            s += "<i class=\"ci\" style=\"left:\(HTML.num(100 * ci.low))%;width:\(HTML.num(100 * (ci.high - ci.low)))%\"></i>"
        }
        return s + "</span>"
    }

    /// The idle window: `24 h`, `90 min`, or a duration.
    func idleText(_ seconds: Double) -> String {
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600)) h" }
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60)) min" }
        return DurationText.compact(seconds)
    }

    // MARK: funnel

    /// The rows grouped as drawn: the shared steps, then each lane.
    func blocks(_ r: FunnelReport) -> [(lane: String?, rows: [Row])] {
        var out: [(lane: String?, rows: [Row])] = []
        for row in r.steps {
            if let last = out.last, last.lane == row.lane {
                out[out.count - 1].rows.append(row)
            } else {
                out.append((row.lane, [row]))
            }
        }
        return out
    }

    /// Rank (1-based) of a step among the top drop-off points.
    func dropRank(_ r: FunnelReport, _ row: Row) -> Int? {
        r.topDropoffs.firstIndex { $0.step == row.step && $0.lane == row.lane }.map { $0 + 1 }
    }

    func pct(_ n: Int, _ scale: Int) -> String {
        HTML.num(scale == 0 ? 0 : min(100, 100 * Double(n) / Double(scale))) + "%"
    }

    func funnel(_ r: FunnelReport, scale: Int, compact: Bool) -> String {
        let all = blocks(r)
        let laneCount = all.filter { $0.lane != nil }.count
        var out = "<div class=\"funnel\(compact ? " compact" : "")\" data-scale=\"\(scale)\">\n"
        var lastShared: Row?
        for block in all {
            out += "<div class=\"lane\">\n<h3 class=\"lanehead\">"
            if let lane = block.lane {
                if lane == FunnelReport.undecidedLane {
                    out += "<b>no lane</b> <span class=\"muted\">users whose lane is not decided</span>"
                } else {
                    out += laneCount > 1 ? "lane <b>\(HTML.escape(lane))</b>" : "<b>\(HTML.escape(lane))</b>"
                }
                if !compact, laneCount > 1, let shared = lastShared, shared.reached > 0,
                   let first = block.rows.first(where: { $0.tracked }) {
                    out += " <span class=\"muted\">· \(HTML.count(first.reached)) users, "
                    out += "\(Format.percent(Double(first.reached) / Double(shared.reached))) of those at <code>\(HTML.escape(shared.step))</code></span>"
                }
            } else {
                out += "<b>every lane</b>" + (compact ? "" : " <span class=\"muted\">steps before the lanes fork</span>")
            }
            let empty = block.lane != nil && r.users.started > 0
                && block.rows.allSatisfy { $0.reached == 0 && $0.eligible == 0 && $0.skipped == 0 && $0.dropped == 0 }
            if empty {
                let users = block.lane.flatMap { l in r.lanes?.first { $0.lane == l } }?.users ?? 0
                out += users > 0 ? " <span class=\"muted\">· \(HTML.count(users)) users, none reached a step of this block</span></h3>\n</div>\n"
                    : " <span class=\"muted\">· no users on this lane</span></h3>\n</div>\n"
                continue
            }
            out += "</h3>\n"
            // The first step of a lane follows the fork: the heading gives its share instead.
            var previous: Row?
            for row in block.rows {
                out += edge(row, previous: previous, compact: compact)
                out += compact ? compactRow(r, row, scale: scale) : fullRow(r, row, scale: scale)
                previous = row
            }
            if block.lane == nil { lastShared = block.rows.last(where: { $0.tracked }) }
            out += "</div>\n"
        }
        out += "</div>\n"
        return out
    }

    /// A step nobody in the selection was meant to see: every user passed over it.
    func passedOver(_ row: Row) -> Bool {
        row.reached == 0 && row.eligible == 0 && row.skipped > 0
    }

    /// The conversion on the edge into `row`: from the previous step when both are shown to
    /// everyone; path-aware (of eligible) next to a step under a condition or flag, where a
    /// plain ratio of reached counts would mix in the users the flow passed over.
    func edge(_ row: Row, previous: Row?, compact: Bool) -> String {
        guard row.tracked, let previous, previous.tracked, !passedOver(row) else { return "" }
        let plain = row.skipped == 0 && previous.skipped == 0
        let rate: Double?
        if plain, let c = row.conversionFromPrevious, c <= 1 {
            rate = c
        } else {
            rate = row.conversionFromEligible
        }
        guard let rate else { return "" }
        let low = rate < 0.8 ? " low" : ""
        if compact {
            return "<div class=\"edge\(low)\"><span>\(Format.percent(rate, digits: 0))</span></div>\n"
        }
        var out = "<div class=\"edge\(low)\"><span class=\"arrow\">↓</span> <b>\(Format.percent(rate))</b> "
        if plain, row.conversionFromPrevious == rate {
            out += "<span class=\"muted\">of <code>\(HTML.escape(previous.step))</code></span></div>\n"
        } else {
            out += "<span class=\"muted\">of eligible</span></div>\n"
        }
        return out
    }

    func fullRow(_ r: FunnelReport, _ row: Row, scale: Int) -> String {
        let rank = dropRank(r, row)
        var cls = "row"
        if !row.tracked { cls += " untracked" } else if passedOver(row) { cls += " skipped" }
        if rank != nil { cls += " top" }
        var out = "<div class=\"\(cls)\" data-step=\"\(HTML.escape(row.step))\" data-lane=\"\(HTML.escape(row.lane ?? ""))\">\n"
        out += "<div class=\"label\"><code class=\"step\">\(HTML.escape(row.step))</code>"
        if let rank { out += " <span class=\"rank\" title=\"drop-off rank\">#\(rank)</span>" }
        if let title = row.title, !title.isEmpty, title != row.step {
            out += "<span class=\"title\">\(HTML.escape(title))</span>"
        }
        if let cond = row.condition {
            out += "<span class=\"cond\">only when <code>\(HTML.escape(cond))</code></span>"
        }
        out += "</div>\n"
        if !row.tracked {
            out += "<div class=\"bars\"><div class=\"notrack\">no telemetry: before the first tracked step</div></div>\n"
            out += "<div class=\"nums muted\">not tracked</div>\n</div>\n"
            return out
        }
        out += "<div class=\"bars\">"
        out += bar(row, scale: scale)
        if row.skipped > 0 {
            out += "<div class=\"skipnote\">passed over <b>\(HTML.count(row.skipped))</b> users"
            if let cond = row.condition { out += " · shown only when <code>\(HTML.escape(cond))</code>" }
            out += "</div>"
        }
        out += "</div>\n"
        out += "<div class=\"nums\">"
        if passedOver(row) {
            out += "<span class=\"big muted\">skipped</span> <span class=\"muted\">for all \(HTML.count(row.skipped)) users</span>"
        } else {
            out += "<span class=\"big\">\(HTML.count(row.reached))</span> reached"
            out += " <span class=\"muted\">of \(HTML.count(row.eligible)) eligible"
            if let c = row.conversionFromEligible { out += " (\(Format.percent(c)))" }
            out += "</span><br>"
            var second: [String] = []
            if row.dropped > 0 { second.append("<span class=\"dropn\">\(HTML.count(row.dropped)) dropped here</span>") }
            if let m = row.medianSecondsOnStep { second.append("<span class=\"muted\">median \(HTML.escape(DurationText.compact(m))) on step</span>") }
            out += second.joined(separator: " <span class=\"muted\">·</span> ")
        }
        out += "</div>\n</div>\n"
        return out
    }

    /// The bar of one row: eligible as a track, reached on it with the dropped users at its
    /// end, then the users passed over as a hatched extension.
    func bar(_ row: Row, scale: Int) -> String {
        var out = "<div class=\"barbox\">"
        if row.eligible > 0 {
            out += "<div class=\"elig\" style=\"width:\(pct(row.eligible, scale))\"></div>"
        }
        out += "<div class=\"stack\">"
        if row.reached > 0 {
            let kept = max(0, row.reached - row.dropped)
            out += "<div class=\"reached\" style=\"width:\(pct(kept, scale))\"></div>"
            if row.dropped > 0 {
                out += "<div class=\"drop\" style=\"width:\(pct(row.dropped, scale))\"></div>"
            }
        }
        if row.skipped > 0 {
            out += "<div class=\"skip\" style=\"width:\(pct(row.skipped, scale))\"></div>"
        }
        out += "</div></div>"
        return out
    }

    func compactRow(_ r: FunnelReport, _ row: Row, scale: Int) -> String {
        // Small multiples highlight the three biggest drop-off points of each group.
        let rank = dropRank(r, row).flatMap { $0 <= 3 ? $0 : nil }
        var cls = "row"
        if !row.tracked { cls += " untracked" } else if passedOver(row) { cls += " skipped" }
        if rank != nil { cls += " top" }
        var out = "<div class=\"\(cls)\" data-step=\"\(HTML.escape(row.step))\" data-lane=\"\(HTML.escape(row.lane ?? ""))\">"
        out += "<div class=\"label\"><code class=\"step\" title=\"\(HTML.escape(row.step))\">\(HTML.escape(row.step))</code></div>"
        if !row.tracked {
            out += "<div class=\"bars\"><div class=\"notrack\">not tracked</div></div><div class=\"nums muted\">—</div></div>\n"
            return out
        }
        out += "<div class=\"bars\">" + bar(row, scale: scale) + "</div>"
        if passedOver(row) {
            out += "<div class=\"nums muted\">skip \(HTML.count(row.skipped))</div>"
        } else {
            out += "<div class=\"nums\">\(HTML.count(row.reached))"
            if row.dropped > 0 { out += " <span class=\"dropn\">−\(HTML.count(row.dropped))</span>" }
            out += "</div>"
        }
        out += "</div>\n"
        return out
    }

    // MARK: drop-offs

    func dropoffs(_ r: FunnelReport) -> String {
        var out = "<section class=\"card\" aria-labelledby=\"drop-h\">\n<h2 id=\"drop-h\">Biggest drop-off points</h2>\n"
        if r.topDropoffs.isEmpty {
            out += "<p class=\"muted\">No abandoned users: nobody dropped off.</p>\n</section>\n"
            return out
        }
        out += "<p class=\"hint\">Where the \(HTML.count(r.users.abandoned)) abandoned users stopped: the step they last viewed.</p>\n"
        out += "<ol class=\"drops\">\n"
        let top = max(1, r.topDropoffs.first?.dropped ?? 1)
        for (i, d) in r.topDropoffs.enumerated() {
            out += "<li><span class=\"rank\">#\(i + 1)</span><span class=\"where\"><code>\(HTML.escape(d.step))</code>"
            if let lane = d.lane { out += " <span class=\"muted\">lane \(HTML.escape(lane))</span>" }
            out += "</span><span class=\"dbar\"><i style=\"width:\(pct(d.dropped, top))\"></i></span>"
            out += "<span class=\"dn\"><b>\(HTML.count(d.dropped))</b> users · \(Format.percent(d.shareOfAbandoned)) of abandoned</span></li>\n"
        }
        out += "</ol>\n</section>\n"
        return out
    }

    // MARK: time to complete

    func timeSummary(_ r: FunnelReport) -> String {
        let t = r.timeToCompleteSeconds
        guard t.count > 0 else { return "" }
        var out = "<p class=\"hint\">\(HTML.count(t.count)) completed users, from <code>onboarding.started</code> to <code>onboarding.completed</code>: "
        let parts = [("p50", t.p50), ("p75", t.p75), ("p90", t.p90), ("p95", t.p95), ("mean", t.mean)]
        out += parts.map { "\($0.0) <b>\(HTML.escape(DurationText.compact($0.1)))</b>" }.joined(separator: " · ")
        out += "</p>\n"
        return out
    }

    /// The histogram of time to complete on `scales`, with p50 and p90 as vertical lines.
    func histogram(_ r: FunnelReport, scales: ChartScales, compact: Bool) -> String {
        let bins = r.timeToCompleteHistogram
        guard !bins.isEmpty else {
            return "<p class=\"muted empty\">No user completed yet: no time to complete to show.</p>\n"
        }
        let w = compact ? 360.0 : 760.0
        let h = compact ? 150.0 : 240.0
        let left = compact ? 30.0 : 44.0, right = compact ? 10.0 : 16.0
        let top = compact ? 30.0 : 38.0, bottom = compact ? 24.0 : 30.0
        let plotW = w - left - right, plotH = h - top - bottom
        let span = scales.timeTo - scales.timeFrom
        func x(_ s: Double) -> Double { left + plotW * (s - scales.timeFrom) / span }
        func y(_ n: Int) -> Double { top + plotH * (1 - Double(n) / Double(scales.binUsers)) }
        let fs = compact ? 10 : 11
        var out = "<svg class=\"histogram\(compact ? " compact" : "")\" viewBox=\"0 0 \(HTML.num(w)) \(HTML.num(h))\" "
        out += "data-x-from=\"\(HTML.num(scales.timeFrom))\" data-x-to=\"\(HTML.num(scales.timeTo))\" data-y-max=\"\(scales.binUsers)\" "
        out += "role=\"img\" aria-label=\"Histogram of time to complete\" font-size=\"\(fs)\">\n"
        out += "<title>Time to complete: users per bin</title>\n"
        // y grid at round counts
        for n in countTicks(scales.binUsers, maxTicks: compact ? 2 : 4) {
            let yy = y(n)
            out += "<line class=\"grid\" x1=\"\(HTML.num(left))\" x2=\"\(HTML.num(w - right))\" y1=\"\(HTML.num(yy))\" y2=\"\(HTML.num(yy))\"/>"
            out += "<text class=\"axis\" x=\"\(HTML.num(left - 6))\" y=\"\(HTML.num(yy + 4))\" text-anchor=\"end\">\(n)</text>\n"
        }
        for b in bins {
            let x0 = x(b.fromSeconds), x1 = x(b.toSeconds)
            let bw = max(0.5, x1 - x0 - 1.5)
            let y0 = y(b.users)
            out += "<rect class=\"bin\" x=\"\(HTML.num(x0 + 0.75))\" y=\"\(HTML.num(y0))\" width=\"\(HTML.num(bw))\" height=\"\(HTML.num(top + plotH - y0))\">"
            out += "<title>\(HTML.escape(DurationText.compact(b.fromSeconds)))–\(HTML.escape(DurationText.compact(b.toSeconds))): \(b.users) users</title></rect>\n"
        }
        // x axis and ticks
        let axisY = top + plotH
        out += "<line class=\"axisline\" x1=\"\(HTML.num(left))\" x2=\"\(HTML.num(w - right))\" y1=\"\(HTML.num(axisY))\" y2=\"\(HTML.num(axisY))\"/>\n"
        for t in ticks(scales, maxTicks: compact ? 4 : 8) {
            let tx = x(t)
            let anchor = tx < left + 12 ? "start" : (tx > w - right - 12 ? "end" : "middle")
            out += "<line class=\"tick\" x1=\"\(HTML.num(tx))\" x2=\"\(HTML.num(tx))\" y1=\"\(HTML.num(axisY))\" y2=\"\(HTML.num(axisY + 4))\"/>"
            out += "<text class=\"axis\" x=\"\(HTML.num(tx))\" y=\"\(HTML.num(axisY + 16))\" text-anchor=\"\(anchor)\">\(HTML.escape(DurationText.compact(t)))</text>\n"
        }
        // p50 and p90 markers; the p90 label moves up a line when it would overlap p50's.
        let t = r.timeToCompleteSeconds
        var labelEnds: [(Double, Double)] = []
        for (name, value) in [("p50", t.p50), ("p90", t.p90)] {
            guard let value else { continue }
            let mx = x(value)
            let label = "\(name) \(DurationText.compact(value))"
            let labelW = Double(label.count) * Double(fs) * 0.62
            var anchor = "start"
            var lx = mx + 4
            if lx + labelW > w - 2 { anchor = "end"; lx = mx - 4 }
            let span0 = anchor == "start" ? lx : lx - labelW
            let span1 = span0 + labelW
            var ly = top - 6
            if labelEnds.contains(where: { span0 < $0.1 + 4 && span1 > $0.0 - 4 }) { ly -= Double(fs) + 4 }
            labelEnds.append((span0, span1))
            out += "<g class=\"marker \(name)\" data-seconds=\"\(HTML.num(value))\">"
            out += "<line x1=\"\(HTML.num(mx))\" x2=\"\(HTML.num(mx))\" y1=\"\(HTML.num(ly + 3))\" y2=\"\(HTML.num(axisY))\"/>"
            out += "<text x=\"\(HTML.num(lx))\" y=\"\(HTML.num(ly))\" text-anchor=\"\(anchor)\">\(HTML.escape(label))</text></g>\n"
        }
        out += "</svg>\n"
        return out
    }

    /// Round counts from 0 up to `max`: multiples of 1, 2 or 5 × 10^k.
    func countTicks(_ max: Int, maxTicks: Int) -> [Int] {
        guard max > 0 else { return [0] }
        var magnitude = 1
        while magnitude < Int.max / 10 {
            for m in [1, 2, 5] where max / (m * magnitude) <= maxTicks {
                return Array(stride(from: 0, through: max, by: m * magnitude))
            }
            magnitude *= 10
        }
        return [0, max]
    }

    /// Round tick values in the time domain: multiples of a nice step.
    func ticks(_ s: ChartScales, maxTicks: Int) -> [Double] {
        let span = s.timeTo - s.timeFrom
        let steps: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600,
                               43200, 86400, 172_800, 604_800, 1_209_600, 2_592_000]
        var step = steps.last ?? 86400
        for c in steps where span / c <= Double(maxTicks) { step = c; break }
        while span / step > Double(maxTicks) { step *= 2 }
        var out: [Double] = []
        var v = (s.timeFrom / step).rounded(.up) * step
        while v <= s.timeTo + 1e-9 {
            out.append(v)
            v += step
        }
        return out
    }

    // MARK: breakdown

    func breakdown(_ groups: [FunnelReport.Group], by: String) -> String {
        let scales = ChartScales.covering(groups.map(\.report))
        var out = "<section class=\"card breakdown\" aria-labelledby=\"by-h\">\n"
        out += "<h2 id=\"by-h\">By \(HTML.escape(report.byTitle))</h2>\n"
        out += "<p class=\"hint\">Side by side on the same scales: a full bar is \(HTML.count(scales.users)) users; "
        out += "the histograms share one time axis (\(HTML.escape(DurationText.compact(scales.timeFrom)))–\(HTML.escape(DurationText.compact(scales.timeTo)))) "
        out += "and one height (\(HTML.count(scales.binUsers)) users per bin).</p>\n"
        out += "<div class=\"multiples\" data-groups=\"\(groups.count)\">\n"
        for g in groups {
            let r = g.report
            out += "<article class=\"group\" data-group=\"\(HTML.escape(g.value))\">\n"
            out += report.isPairs ? "<h3>\(HTML.escape(report.heading(g)))"
                : "<h3><span class=\"muted\">\(HTML.escape(by)) =</span> \(HTML.escape(g.value))"
            out += g.settled == false ? " <span class=\"muted\">(unsettled: users may still complete)</span></h3>\n" : "</h3>\n"
            out += "<p class=\"gstats\"><b>\(HTML.count(r.users.started))</b> started · <b>\(Format.percent(r.completionRate))</b> complete"
            if let ci = r.completionRateCI95 { out += " <span class=\"muted\">(\(Format.percent(ci.low, digits: 0))–\(Format.percent(ci.high, digits: 0)))</span>" }
            out += "<br><span class=\"muted\">p50</span> \(HTML.escape(DurationText.compact(r.timeToCompleteSeconds.p50))) · "
            out += "<span class=\"muted\">p90</span> \(HTML.escape(DurationText.compact(r.timeToCompleteSeconds.p90))) · "
            out += "\(HTML.count(r.users.abandoned)) abandoned"
            if let c = g.versusRest {
                out += "<br><span class=\"muted\">vs rest</span> <span class=\"\(c.isSignificant ? "sig" : "muted")\">"
                out += "\(HTML.escape(c.points)) (\(HTML.escape(c.pText)))</span>"
            }
            out += "</p>\n"
            out += funnel(r, scale: scales.users, compact: true)
            out += histogram(r, scales: scales, compact: true)
            out += "</article>\n"
        }
        out += "</div>\n</section>\n"
        return out
    }

    // MARK: tables

    func tables(_ r: FunnelReport) -> String {
        var out = "<section class=\"card tables\" aria-labelledby=\"tab-h\">\n<h2 id=\"tab-h\">The numbers</h2>\n"
        if let groups = r.groups, let by = r.by {
            let column = r.isPairs ? r.dimensions.joined(separator: FunnelReport.Group.pairSeparator) : by
            out += "<h3>By \(HTML.escape(r.byTitle))</h3>\n<div class=\"scroll\"><table>\n<thead><tr><th>\(HTML.escape(column))</th>"
            for h in ["started", "completed", "in progress", "abandoned", "completion", "95% CI", "vs rest", "p (adj.)", "p50", "p90"] {
                out += "<th class=\"n\">\(h)</th>"
            }
            out += "</tr></thead>\n<tbody>\n"
            for g in [FunnelReport.Group(value: "all", report: r)] + groups {
                let x = g.report
                out += "<tr\(g.value == "all" && g.report == r ? " class=\"total\"" : "")><th>\(HTML.escape(g.value))</th>"
                let ci = x.completionRateCI95.map { "\(Format.percent($0.low))–\(Format.percent($0.high))" } ?? "—"
                for c in [HTML.count(x.users.started), HTML.count(x.users.completed), HTML.count(x.users.inProgress),
                          HTML.count(x.users.abandoned), Format.percent(x.completionRate), ci,
                          g.versusRest?.points ?? "", g.versusRest?.pCell ?? "",
                          DurationText.compact(x.timeToCompleteSeconds.p50), DurationText.compact(x.timeToCompleteSeconds.p90)] {
                    out += "<td class=\"n\">\(HTML.escape(c))</td>"
                }
                out += "</tr>\n"
            }
            out += "</tbody></table></div>\n<h3>Every step, all users</h3>\n"
        }
        out += "<div class=\"scroll\"><table class=\"steps\">\n<thead><tr><th>lane</th><th>step</th><th>shown when</th>"
        for h in ["reached", "eligible", "skipped", "dropped", "from previous", "of eligible", "median on step"] {
            out += "<th class=\"n\">\(h)</th>"
        }
        out += "</tr></thead>\n<tbody>\n"
        var lane: String?? = .none
        for s in r.steps {
            let newLane = lane.map { $0 != s.lane } ?? true
            lane = .some(s.lane)
            var cls: [String] = []
            if newLane { cls.append("lanestart") }
            if !s.tracked { cls.append("untracked") }
            if dropRank(r, s) != nil { cls.append("top") }
            out += "<tr\(cls.isEmpty ? "" : " class=\"\(cls.joined(separator: " "))\"")>"
            out += "<td>\(newLane ? HTML.escape(s.lane ?? "every lane") : "")</td><td><code>\(HTML.escape(s.step))</code></td>"
            out += "<td>\(s.condition.map { "<code>\(HTML.escape($0))</code>" } ?? "")</td>"
            if !s.tracked {
                out += "<td class=\"n muted\" colspan=\"7\">not tracked (before the first tracked step)</td></tr>\n"
                continue
            }
            for c in [HTML.count(s.reached), HTML.count(s.eligible), s.skipped > 0 ? HTML.count(s.skipped) : "",
                      s.dropped > 0 ? HTML.count(s.dropped) : "", Format.percent(s.conversionFromPrevious),
                      Format.percent(s.conversionFromEligible), DurationText.compact(s.medianSecondsOnStep)] {
                out += "<td class=\"n\">\(HTML.escape(c))</td>"
            }
            out += "</tr>\n"
        }
        out += "</tbody></table></div>\n</section>\n"
        return out
    }

    // MARK: footer

    func footer() -> String {
        var out = "<footer>\n<h2>Definitions</h2>\n<dl class=\"defs\">\n"
        let defs: [(String, String)] = [
            ("started", "the user has <code>onboarding.started</code> in the flow. Reports count started users only."),
            ("completed", "the user has <code>onboarding.completed</code>."),
            ("time to complete", "first <code>onboarding.completed</code> − first <code>onboarding.started</code>, over completed users."),
            ("as of", "the latest event time in the store, unless <code>--as-of</code> says otherwise. This page: <b>\(HTML.escape(report.asOf))</b>."),
            ("state", "completed; otherwise <em>in progress</em> if the user's last event is within the idle window (here \(HTML.escape(idleText(report.idleSeconds))); default 24 h) before as-of; otherwise <em>abandoned</em>."),
            ("current step", "the step of the user's latest <code>onboarding.step_viewed</code> (event time; ties by arrival)."),
            ("reached", "started users with at least one <code>step_viewed</code> of the step."),
            ("eligible", "started users whose expected path (the steps they should see given their lane, the answers they gave and the flags they had) holds the step and who reached the step before it on that path."),
            ("skipped / passed over", "users whose expected path leaves the step out by its condition or flag. A step a user was never eligible for is not a drop-off."),
            ("drop-off", "an abandoned user's current step: the step where they stopped. Top drop-off points rank steps by those users."),
            ("conversion", "from previous: reached ÷ reached of the step before on the lane; of eligible: eligible users who reached the step ÷ eligible."),
            ("percentiles", "linear interpolation between closest ranks (numpy's default, DuckDB's <code>quantile_cont</code>)."),
            ("95% CI", "the Wilson score interval of the completion rate (completed ÷ started), z = 1.96."),
            ("not tracked", "steps before the flow's first tracked step emit no events; their figures are unknown, not zero."),
        ]
        for (term, meaning) in defs {
            out += "<dt>\(term)</dt><dd>\(meaning)</dd>\n"
        }
        out += "</dl>\n<p class=\"provenance\">As of <b>\(HTML.escape(report.asOf))</b>"
        if let generatedAt { out += " · page generated \(HTML.escape(generatedAt))" }
        out += " · produced by</p>\n<pre class=\"command\"><code>\(HTML.escape(command))</code></pre>\n</footer>\n"
        return out
    }
}
