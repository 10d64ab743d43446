import Foundation
import FunnelModel

/// The output formats of `funnel explain`.
public enum ExplainFormat: String, Sendable, CaseIterable {
    case text, json, markdown
}

extension DropoffExplanation.Attribute {
    /// `journeyStatus = about_to_start`, `flag trackingStyleQuestion on`, `app_version 3.2.0`,
    /// `platform ios`, `lane glp1`, `permission_result granted=false`.
    public var label: String {
        switch Kind(rawValue: kind) {
        case .answer: return "\(key ?? "?") = \(value)"
        case .flag: return "flag \(key ?? "?") \(value)"
        case .prompt: return value
        case .appVersion, .platform, .lane, .none: return "\(kind) \(value)"
        }
    }

    /// `+20.1` (points), `—` without a difference.
    var pointsCell: String {
        versusRest.points.replacingOccurrences(of: " pts", with: "")
    }

    /// `+9.4…+34.5` (points), `—` without an interval.
    var intervalCell: String {
        guard let ci = differenceCI95 else { return "—" }
        return String(format: "%+.1f…%+.1f", ci.low * 100, ci.high * 100)
    }

    /// The adjusted p-value for a cell; "same for all" when no user of the rest differs.
    var pCell: String {
        restUsers == 0 ? "all" : versusRest.pCell
    }
}

extension DropoffExplanation {
    /// JSON: pretty-printed, keys sorted, stable (docs/report-json.md).
    public func json() throws -> String { try FunnelReport.jsonText(self) }

    /// Whether the figures sum the rows of several lanes (a step on each of them, after the
    /// shared ones, without `--lane`).
    var summed: Bool { lane == nil && lanes.count > 1 && !shared }

    /// `notificationsPermission · lane glp1`, `signIn` or `height · lanes explorers, glp1`.
    var subject: String {
        if let lane { return "\(step) · lane \(lane)" }
        return summed ? "\(step) · lanes \(lanes.joined(separator: ", ")) (summed)" : step
    }

    var selectionText: String { selection.heading { $0 } }

    var scopeText: String { selection.scope { $0 } }

    /// One sentence on who is counted and how they split.
    var usersText: String {
        var s = "eligible \(users.eligible) · reached \(users.reached) · dropped there \(users.dropped) · went on \(users.wentOn)"
        s += " · in progress there \(users.inProgress) (not compared)"
        if users.droppedNotEligible > 0 {
            s += " · \(users.droppedNotEligible) of the dropped were not eligible (off their expected path; not compared)"
        }
        return s
    }

    var rateText: String {
        guard let dropRate else { return "nobody eligible reached the step yet: nothing to compare" }
        var s = "drop rate \(Format.percent(dropRate))"
        if let ci = dropRateCI95 { s += " (95% CI \(Format.percent(ci.low))–\(Format.percent(ci.high)))" }
        return s + " of the \(users.compared) users compared: the eligible users who reached it, dropped there or went on"
    }

    /// The attributes shown in text: the strongest evidence, every significant one.
    static let textRows = 12

    /// Text for a terminal: 80 columns.
    public func text() -> String {
        var out = Format.wrapped("What explains the drop-off at \(subject)", indent: 0)
        out += Format.wrapped(selectionText, indent: 0) + Format.wrapped(scopeText, indent: 0) + "\n"
        out += Format.wrapped(usersText, indent: 0) + Format.wrapped(rateText, indent: 0)
        if users.droppedCompared == 0 {
            out += "\nnobody eligible dropped there: no attribute can explain a drop-off\n"
        } else {
            out += "\n" + attributeTable()
        }
        out += lastEventsText()
        return out
    }

    func attributeTable() -> String {
        let widths = [34, 6, 5, 7, 8, 12, 8]
        let titles = ["attribute value", "users", "drop", "rate", "vs rest", "95% CI", "p adj"]
        var out = ""
        for (k, (t, w)) in zip(titles, widths).enumerated() { out += Format.pad(t, w, right: k > 0) }
        out += "\n"
        let shown = attributes.enumerated().filter { $0.offset < Self.textRows || $0.element.versusRest.isSignificant }.map(\.element)
        for a in shown {
            let label = TerminalText.escape(a.label)
            let cells = [label, String(a.users), String(a.dropped), Format.percent(a.dropRate), a.pointsCell, a.intervalCell, a.pCell]
            if label.count > widths[0] { out += label + "\n" }
            for (k, (c, w)) in zip(cells, widths).enumerated() {
                out += k == 0 ? Format.pad(label.count > w ? "" : c, w) : Format.pad(c, w, right: true)
            }
            out += "\n"
        }
        if attributes.count > shown.count {
            out += "… \(attributes.count - shown.count) more values, none significant (all in --format json or markdown)\n"
        }
        out += Format.wrapped("vs rest: the drop rate minus that of the other users compared, in points, with its 95% CI"
            + " (Newcombe); p adj: two-proportion z-test, Benjamini–Hochberg adjusted across the \(attributes.count) values,"
            + " * below \(Statistics.significanceLevel), — under \(Statistics.minimumUsersForTest) users on a side;"
            + " all: every user compared has the value", indent: 0)
        return out
    }

    func lastEventsText() -> String {
        guard !lastEvents.isEmpty else { return "" }
        var out = "\n" + Format.wrapped("what the \(users.dropped) users who dropped there did last on \(step)", indent: 0)
        for e in lastEvents {
            let label = TerminalText.escape(e.text)
            if label.count > 60 { out += "  " + label + "\n" }
            out += "  " + Format.pad(label.count > 60 ? "" : label, 60) + Format.pad(String(e.users), 8, right: true)
                + Format.pad(Format.percent(e.share), 8, right: true) + "\n"
        }
        return out
    }

    /// Markdown for pasting into docs: every attribute value.
    public func markdown() -> String {
        var out = "# What explains the drop-off at \(Markdown.code(step))" + (lane.map { " (lane \(Markdown.text($0)))" } ?? "") + "\n\n"
        out += "_\(Markdown.text(selectionText + " · " + scopeText))_\n\n"
        if summed { out += "Users of lanes \(lanes.map(Markdown.text).joined(separator: ", ")), summed.\n\n" }
        out += usersText.prefix(1).uppercased() + usersText.dropFirst() + ".\n\n"
        out += rateText.prefix(1).uppercased() + rateText.dropFirst() + ".\n\n"
        if !attributes.isEmpty {
            out += "| attribute | value | users | dropped | drop rate | vs rest (pts) | 95% CI (pts) | p | p adjusted |\n"
            out += "|---|---|---:|---:|---:|---:|---:|---:|---:|\n"
            for a in attributes {
                let p = a.versusRest.pValue.map { $0 < 0.001 ? "<0.001" : String(format: "%.3f", $0) } ?? "—"
                out += "| \(Markdown.text(a.kind))\(a.key.map { " " + Markdown.code($0, inTable: true) } ?? "") | "
                out += "\(Markdown.code(a.value, inTable: true)) | \(a.users) | \(a.dropped) | "
                out += "\(Format.percent(a.dropRate)) | \(a.pointsCell) | \(a.intervalCell) | \(p) | \(a.pCell) |\n"
            }
            out += "\nvs rest: the drop rate minus that of the other users compared (Newcombe's 95% interval); "
            out += "p: two-proportion z-test, adjusted (Benjamini–Hochberg) across the \(attributes.count) values, "
            out += "\\* below \(Statistics.significanceLevel); — under \(Statistics.minimumUsersForTest) users on a side.\n"
        }
        if !lastEvents.isEmpty {
            out += "\n## What the \(users.dropped) users who dropped there did last on \(Markdown.code(step))\n\n"
            out += "| last event | users | share |\n|---|---:|---:|\n"
            for e in lastEvents { out += "| \(Markdown.code(e.text, inTable: true)) | \(e.users) | \(Format.percent(e.share)) |\n" }
        }
        return out
    }
}
