import Foundation
import FunnelModel

/// The output formats of `funnel report`.
public enum ReportFormat: String, Sendable, CaseIterable {
    case text, json, csv, markdown, html
}

extension FunnelReport {
    /// JSON: pretty-printed, keys sorted, stable (docs/report-json.md).
    public func json() throws -> String { try FunnelReport.jsonText(self) }

    /// The one JSON form of machine output: pretty-printed, keys sorted, a newline at the end.
    static func jsonText<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }

    /// The flow and selection, each name shown through `shown` (escaped for the output).
    private func heading(_ shown: (String) -> String) -> String { selection.heading(shown) }

    private func scope(_ shown: (String) -> String) -> String { selection.scope(shown) }

    /// Text for a terminal: 80 columns, bars for conversion from eligible.
    public func text() -> String {
        var out = ""
        let t = TerminalText.escape
        if let groups, let by {
            out += heading(t) + "\n" + Format.wrapped(scope(t), indent: 0) + "by \(t(byTitle))\n\n"
            out += driftText()
            if isPairs { return out + pairTable(groups) + pairFindings(groups) }
            out += groupTable(groups)
            for g in groups {
                out += "\n" + String(repeating: "═", count: 78) + "\n\(t(by)) = \(t(g.value))"
                out += g.settled == false ? " (unsettled: its users may still complete)\n" : "\n"
                for line in versusRestText(g) { out += Format.wrapped(line, indent: 0) }
                out += g.report.textBody()
            }
            return out
        }
        return heading(t) + "\n" + Format.wrapped(scope(t), indent: 0) + "\n" + driftText() + textBody() + (periodComparison.map(comparisonText) ?? "")
    }

    /// The groups side by side. Time buckets (`--by day`, `--by week`) show their interval and
    /// mark unsettled buckets with `~`; other groups their completion against the rest.
    func groupTable(_ groups: [Group]) -> String {
        let time = groups.contains { $0.settled != nil }
        let widths = time ? [12, 8, 10, 7, 14, 8, 8, 10] : [12, 8, 10, 7, 8, 8, 10, 8, 9]
        let titles = time ? ["", "started", "completed", "rate", "95% CI", "p50", "p90", "abandoned"]
            : ["", "started", "completed", "rate", "p50", "p90", "abandoned", "vs rest", "p adj"]
        var out = ""
        for (t, w) in zip(titles, widths) { out += Format.pad(t, w, right: !t.isEmpty) }
        out += "\n"
        for g in groups {
            let r = g.report
            var cells = [g.value + (g.settled == false ? "~" : ""), String(r.users.started), String(r.users.completed),
                         Format.percent(r.completionRate)]
            if time { cells.append(r.completionRateCI95.map { "\(Format.percent($0.low))–\(Format.percent($0.high))" } ?? "—") }
            cells += [DurationText.compact(r.timeToCompleteSeconds.p50), DurationText.compact(r.timeToCompleteSeconds.p90),
                      String(r.users.abandoned)]
            if !time { cells += [(g.versusRest?.points ?? "—").replacingOccurrences(of: " pts", with: ""), g.versusRest?.pCell ?? "—"] }
            for (k, (c, w)) in zip(cells, widths).enumerated() { out += Format.pad(c, w, right: k > 0) }
            out += "\n"
        }
        if time {
            out += "~ unsettled: it ended less than the idle window before as-of, so its users\n"
            out += "  may still complete (its rate is no drop); each bucket against the rest below\n"
        } else {
            out += FunnelReport.versusRestLegend
        }
        return out
    }

    /// What the `vs rest` and `p adj` columns of a group table mean.
    static let versusRestLegend = "vs rest: completion rate minus the rest of the selection's, in points; p adj:\n"
        + "two-proportion z-test, Benjamini–Hochberg adjusted, * below \(Statistics.significanceLevel),\n"
        + "— under \(Statistics.minimumUsersForTest) users on a side\n"

    func textBody() -> String {
        var out = ""
        out += "users    started \(users.started) · completed \(users.completed) · in progress \(users.inProgress) · abandoned \(users.abandoned)\n"
        if let rate = completionRate {
            out += "complete \(Format.percent(rate))"
            if let ci = completionRateCI95 { out += " (95% CI \(Format.percent(ci.low))–\(Format.percent(ci.high)))" }
            out += "\n"
        }
        let t = timeToCompleteSeconds
        if t.count > 0 {
            out += "time     p50 \(DurationText.compact(t.p50)) · p75 \(DurationText.compact(t.p75)) · p90 \(DurationText.compact(t.p90)) · p95 \(DurationText.compact(t.p95)) · mean \(DurationText.compact(t.mean))\n"
        }
        out += "\n"
        out += Format.pad("step", 24) + Format.pad("reached", 8, right: true) + Format.pad("eligible", 9, right: true)
            + Format.pad("skip", 6, right: true) + Format.pad("drop", 6, right: true) + "  "
            + "reached of eligible\n"
        var lane: String?? = .none
        var emptyLane = false
        for row in steps {
            if lane.map({ $0 != row.lane }) ?? true {
                lane = .some(row.lane)
                let members = steps.filter { $0.lane == row.lane }
                emptyLane = row.lane != nil && members.allSatisfy { $0.reached == 0 && $0.eligible == 0 && $0.skipped == 0 }
                let count = row.lane.flatMap { l in lanes?.first { $0.lane == l } }.map { " · \($0.users) users" } ?? ""
                let title = "── " + TerminalText.escape(row.lane.map { $0 == FunnelReport.undecidedLane ? "no lane decided" : "lane \($0)" } ?? "every lane")
                    + (emptyLane ? (count.isEmpty || count == " · 0 users" ? ": no users of this selection on it " : count + ", no lane step reached ")
                        : count + " ")
                out += title + String(repeating: "─", count: max(3, 58 - title.count)) + "\n"
            }
            if emptyLane { continue }
            let name = row.condition != nil ? row.step + "*" : row.step
            if !row.tracked {
                out += Format.pad(name, 24) + "  (before tracking starts: no events)\n"
                continue
            }
            out += Format.pad(name, 24) + Format.pad(String(row.reached), 8, right: true)
                + Format.pad(String(row.eligible), 9, right: true)
                + Format.pad(row.skipped > 0 ? String(row.skipped) : "", 6, right: true)
                + Format.pad(row.dropped > 0 ? String(row.dropped) : "", 6, right: true) + "  "
                + Format.bar(row.conversionFromEligible, width: 18) + Format.pad(Format.percent(row.conversionFromEligible), 7, right: true) + "\n"
        }
        if steps.contains(where: { $0.condition != nil }) {
            out += "* shown only under a condition or flag: users it passed over are 'skip',\n  never 'drop'\n"
        }
        out += PathsReport.TimeBetween.slowestText(adjacentPairs ?? [], count: PathsReport.textSlowestPairs)
        if !topDropoffs.isEmpty {
            out += "\ntop drop-off points\n"
            for (i, d) in topDropoffs.enumerated() {
                let lane = d.lane.map { $0 == FunnelReport.undecidedLane ? " (no lane)" : " (\($0))" } ?? ""
                out += "  \(i + 1). " + Format.pad(d.step + lane, 40)
                    + Format.pad("\(d.dropped) users", 11, right: true) + Format.pad(Format.percent(d.shareOfAbandoned), 8, right: true)
                    + " of abandoned\n"
            }
        }
        return out
    }

    /// Markdown for pasting into docs.
    public func markdown() -> String {
        var out = "# \(heading(Markdown.text))\n\n_\(scope(Markdown.text))_\n\n"
        out += driftMarkdown()
        out += markdownBody()
        if let periodComparison { out += comparisonMarkdown(periodComparison) }
        if let groups, by != nil {
            for g in groups {
                out += "\n## \(heading(g, shown: Markdown.text))\n\n"
                if g.settled == false { out += "_Unsettled: this bucket ended less than the idle window before as-of, so its users may still complete._\n\n" }
                for line in versusRestText(g, shown: Markdown.text) { out += line.prefix(1).uppercased() + line.dropFirst() + ".\n\n" }
                out += g.report.markdownBody()
            }
        }
        return out
    }

    func markdownBody() -> String {
        var out = "| users | started | completed | in progress | abandoned | completion | 95% CI |\n"
        out += "|---|---:|---:|---:|---:|---:|---:|\n"
        out += "| | \(users.started) | \(users.completed) | \(users.inProgress) | \(users.abandoned) | \(Format.percent(completionRate)) | "
        out += completionRateCI95.map { "\(Format.percent($0.low))–\(Format.percent($0.high))" } ?? "—"
        out += " |\n\n"
        let t = timeToCompleteSeconds
        out += "Time to complete (\(t.count) users): p50 \(DurationText.compact(t.p50)), p75 \(DurationText.compact(t.p75)), "
        out += "p90 \(DurationText.compact(t.p90)), p95 \(DurationText.compact(t.p95)), mean \(DurationText.compact(t.mean)).\n\n"
        out += "| lane | step | shown when | reached | eligible | skipped | dropped | from previous | from eligible | median time on step |\n"
        out += "|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n"
        for r in steps {
            out += "| \(Markdown.text(r.lane ?? "every lane")) | \(Markdown.code(r.step, inTable: true)) | "
            out += "\(r.condition.map { Markdown.code($0, inTable: true) } ?? "") | "
            if !r.tracked {
                out += "— | — | — | — | — | — | before tracking starts |\n"
                continue
            }
            out += "\(r.reached) | \(r.eligible) | \(r.skipped) | \(r.dropped) | \(Format.percent(r.conversionFromPrevious)) | "
            out += "\(Format.percent(r.conversionFromEligible)) | \(DurationText.compact(r.medianSecondsOnStep)) |\n"
        }
        if let pairs = adjacentPairs, !pairs.isEmpty {
            out += "\nSlowest steps to the next on a lane (first view to the first view of the next):\n\n"
            out += "| from | to | users | p50 | p90 | mean |\n|---|---|---:|---:|---:|---:|\n"
            for p in PathsReport.TimeBetween.slowest(pairs).prefix(PathsReport.textSlowestPairs) {
                out += "| \(Markdown.code(p.from, inTable: true)) | \(Markdown.code(p.to, inTable: true)) | \(p.users) | "
                out += "\(DurationText.compact(p.p50)) | \(DurationText.compact(p.p90)) | \(DurationText.compact(p.mean)) |\n"
            }
        }
        if !topDropoffs.isEmpty {
            out += "\nTop drop-off points:\n\n"
            for (i, d) in topDropoffs.enumerated() {
                out += "\(i + 1). \(Markdown.code(d.step))\(d.lane.map { " (\(Markdown.text($0)))" } ?? ""): "
                out += "\(d.dropped) users, \(Format.percent(d.shareOfAbandoned)) of abandoned\n"
            }
        }
        return out
    }

    /// CSV: one row per step (and per group with `--by`), with the user counts repeated so
    /// each row stands alone in a spreadsheet; cells safe to open in one unless `raw` (`CSV`).
    /// With two dimensions the first column, `group`, becomes one column per dimension.
    public func csv(raw: Bool = false) -> String {
        let pairs = isPairs && groups != nil
        var out = pairs ? dimensions.map { CSV.field($0, raw: raw) }.joined(separator: ",") + "," : "group,"
        out += "lane,step,kind,condition,tracked,reached,eligible,eligible_reached,skipped,dropped,"
        out += "conversion_from_previous,conversion_from_eligible,median_seconds_on_step,"
        out += "users_started,users_completed,users_in_progress,users_abandoned,completion_rate\n"
        func rows(_ r: FunnelReport, group: [String]) {
            for s in r.steps {
                let cells: [String] = group + [
                    s.lane ?? "", s.step, s.kind, s.condition ?? "", s.tracked ? "true" : "false",
                    String(s.reached), String(s.eligible), String(s.eligibleReached), String(s.skipped), String(s.dropped),
                    Format.number(s.conversionFromPrevious, digits: 6), Format.number(s.conversionFromEligible, digits: 6),
                    Format.number(s.medianSecondsOnStep, digits: 3),
                    String(r.users.started), String(r.users.completed), String(r.users.inProgress), String(r.users.abandoned),
                    Format.number(r.completionRate, digits: 6),
                ]
                out += CSV.row(cells, raw: raw)
            }
        }
        if let groups {
            for g in groups { rows(g.report, group: pairs ? dimensions.map { g.values[$0] ?? "" } : [g.value]) }
        } else {
            rows(self, group: ["all"])
        }
        if let periodComparison { out += periodComparison.csvRows(raw: raw) }
        // Drift findings as rows of group `drift`: kind, the subject as `condition`, users as
        // `reached` (the full table: `funnel flows drift --format csv`).
        for d in drift ?? [] {
            let subject = d.key.map { "\($0) = \(d.value ?? "")" } ?? d.event.map { "event \($0)" }
                ?? d.flag.map { "flag \($0)" } ?? ""
            var cells = ["drift"] + (pairs ? [""] : []) + [d.lane ?? "", d.step ?? "", d.kind, subject, "", String(d.users)]
            cells += [String](repeating: "", count: 12)
            out += CSV.row(cells, raw: raw)
        }
        return out
    }
}
