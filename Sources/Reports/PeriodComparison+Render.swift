import Foundation
import FunnelModel

extension PeriodComparison.Difference {
    /// `+3.8 pts`, `—` without users on a side.
    var pointsText: String { Format.points(points) }

    /// `95% CI −8.1 to +15.6 pts`, `p = 0.561` (or `too few users`).
    var intervalText: String {
        guard let ciLow, let ciHigh else { return "95% CI —" }
        return String(format: "95%% CI %+.1f to %+.1f pts", ciLow, ciHigh)
    }

    var pText: String { pValue.map(Format.pValue) ?? "too few users to test" }

    /// The p-value for a table cell (`Format.pCell`).
    var pCell: String { Format.pCell(pValue) }
}

extension FunnelReport {
    /// The two periods, for labels: `2026-10-08 – 2026-10-15`, with `~` when unsettled.
    func periodLabels(_ c: PeriodComparison) -> (current: String, compared: String) {
        func label(_ since: String?, _ until: String?, _ settled: Bool) -> String {
            let day = { (s: String?) in s.map { $0.hasSuffix("T00:00:00.000Z") ? String($0.prefix(10)) : $0 } ?? "" }
            return "\(day(since))–\(day(until))" + (settled ? "" : "~")
        }
        return (label(since, until, c.currentSettled), label(c.since, c.until, c.settled))
    }

    /// `--compare` in 80 columns: both periods' users and completion, the difference with its
    /// interval and test, then each step's conversion from eligible in both.
    func comparisonText(_ c: PeriodComparison) -> String {
        let (current, compared) = periodLabels(c)
        var out = "\n" + String(repeating: "═", count: 78) + "\n"
        out += "this period \(current) against \(compared)\n"
        out += Format.pad("", 22) + Format.pad("this period", 15, right: true) + Format.pad("compared", 15, right: true)
            + Format.pad("difference", 12, right: true) + "\n"
        out += Format.pad("started", 22) + Format.pad(String(users.started), 15, right: true)
            + Format.pad(String(c.users.started), 15, right: true) + "\n"
        out += Format.pad("completed", 22) + Format.pad(String(users.completed), 15, right: true)
            + Format.pad(String(c.users.completed), 15, right: true) + "\n"
        out += Format.pad("completion", 22) + Format.pad(Format.percent(completionRate), 15, right: true)
            + Format.pad(Format.percent(c.completionRate), 15, right: true)
            + Format.pad(c.completionDifference.pointsText, 12, right: true) + "\n"
        out += Format.wrapped("completion difference: \(c.completionDifference.intervalText), \(c.completionDifference.pText) "
                              + "(pooled two-proportion z-test)", indent: 0)
        out += "\n" + Format.pad("reached of eligible", 22) + Format.pad("this period", 15, right: true)
            + Format.pad("compared", 15, right: true) + Format.pad("difference", 12, right: true) + Format.pad("p", 9, right: true) + "\n"
        var lane: String?? = .none
        for s in c.steps {
            let mine = steps.first { $0.step == s.step && $0.lane == s.lane }
            // A step no user of either period was eligible for has nothing to compare.
            if s.eligible == 0 && (mine?.eligible ?? 0) == 0 { continue }
            if lane.map({ $0 != s.lane }) ?? true {
                lane = .some(s.lane)
                out += "── " + TerminalText.escape(s.lane.map { $0 == FunnelReport.undecidedLane ? "no lane decided" : "lane \($0)" } ?? "every lane") + "\n"
            }
            out += Format.pad(s.step, 22)
                + Format.pad("\(Format.percent(s.currentConversionFromEligible)) of \(mine?.eligible ?? 0)", 15, right: true)
                + Format.pad("\(Format.percent(s.conversionFromEligible)) of \(s.eligible)", 15, right: true)
                + Format.pad(s.difference.pointsText, 12, right: true) + Format.pad(s.difference.pCell, 9, right: true) + "\n"
        }
        out += "difference: this period minus the compared one, in points; p: two-proportion\n"
        out += "z-test, * below \(Statistics.significanceLevel), — under \(Statistics.minimumUsersForTest) users on a side\n"
        if !c.settled || !c.currentSettled {
            out += "~ unsettled: the period ended less than the idle window before as-of, so its\n"
            out += "  users may still complete (its rate is no drop)\n"
        }
        return out
    }

    /// `--compare` in Markdown: the same figures as tables.
    func comparisonMarkdown(_ c: PeriodComparison) -> String {
        let (current, compared) = periodLabels(c)
        var out = "\n## This period \(Markdown.text(current)) against \(Markdown.text(compared))\n\n"
        out += "| | this period | compared | difference |\n|---|---:|---:|---:|\n"
        out += "| started | \(users.started) | \(c.users.started) | |\n"
        out += "| completed | \(users.completed) | \(c.users.completed) | |\n"
        out += "| completion | \(Format.percent(completionRate)) | \(Format.percent(c.completionRate)) | \(c.completionDifference.pointsText) |\n\n"
        out += "Completion difference: \(c.completionDifference.intervalText), \(c.completionDifference.pText) (pooled two-proportion z-test).\n\n"
        out += "| lane | step | this period | compared | difference | p |\n|---|---|---:|---:|---:|---:|\n"
        for s in c.steps {
            out += "| \(Markdown.text(s.lane ?? "every lane")) | \(Markdown.code(s.step, inTable: true)) | "
            out += "\(Format.percent(s.currentConversionFromEligible)) | \(Format.percent(s.conversionFromEligible)) of \(s.eligible) | "
            out += "\(s.difference.pointsText) | \(Markdown.text(s.difference.pCell)) |\n"
        }
        if !c.settled || !c.currentSettled {
            out += "\n_~ unsettled: the period ended less than the idle window before as-of, so its users may still complete._\n"
        }
        return out
    }
}

extension PeriodComparison {
    /// CSV: the compared period's step rows as group `compared`, with the columns it has
    /// (eligible, eligible_reached, conversion_from_eligible, the users); the others empty.
    func csvRows(raw: Bool) -> String {
        steps.map { s in
            CSV.row(["compared", s.lane ?? "", s.step, "", "", "true", "", String(s.eligible), String(s.eligibleReached), "", "",
                     "", Format.number(s.conversionFromEligible, digits: 6), "",
                     String(users.started), String(users.completed), String(users.inProgress), String(users.abandoned),
                     Format.number(completionRate, digits: 6)], raw: raw)
        }.joined()
    }
}
