import FunnelModel

extension PathsReport {
    /// JSON: pretty-printed, keys sorted, stable (docs/report-json.md).
    public func json() throws -> String { try FunnelReport.jsonText(self) }

    /// The CSV columns: one table of rows of every section, told apart by `table`.
    static let csvHeader = ["table", "step", "to", "kind", "users", "count", "completed", "in_progress", "abandoned"]
        + ReturnKind.allCases.map(\.rawValue) + ["p50", "p75", "p90", "p95", "mean"]

    /// CSV: `transition` rows (step = from, count = moves), `exit` rows, `return` rows (step =
    /// the step left, count = returns, then where they came back) and a `time_between` row
    /// (step = from); cells safe to open in a spreadsheet unless `raw` (`CSV`).
    public func csv(raw: Bool = false) -> String {
        let width = Self.csvHeader.count
        func row(_ cells: [String]) -> String { CSV.row(cells + [String](repeating: "", count: width - cells.count), raw: raw) }
        var out = CSV.row(Self.csvHeader, raw: raw)
        for m in transitions { out += row(["transition", m.from, m.to, m.kind.rawValue, String(m.users), String(m.moves)]) }
        for e in exits {
            out += row(["exit", e.step, "", "", String(e.users), "", String(e.completed), String(e.inProgress), String(e.abandoned)])
        }
        for r in returns {
            out += row(["return", r.step, "", "", String(r.users), String(r.returns), "", "", ""]
                       + ReturnKind.allCases.map { String(r.cameBack[$0.rawValue] ?? 0) })
        }
        if let b = timeBetween {
            out += row(["time_between", b.from, b.to, "", String(b.users), "", "", "", ""]
                       + [String](repeating: "", count: ReturnKind.allCases.count)
                       + [b.p50, b.p75, b.p90, b.p95, b.mean].map { Format.number($0, digits: 3) })
        }
        return out
    }

    /// Markdown for pasting into docs: every move, exit and return.
    public func markdown() -> String {
        var out = "# Paths · \(selection.heading(Markdown.text))\n\n_\(selection.scope(Markdown.text))_\n\n"
        out += "Started users \(users.started), of whom \(users.viewed) viewed a step and \(users.moved) moved between steps.\n"
        if !transitions.isEmpty {
            out += "\n## Moves\n\n| from | to | kind | users | moves | share of those who moved on |\n|---|---|---|---:|---:|---:|\n"
            for m in transitions {
                let on = movedOn(m.from)
                out += "| \(Markdown.code(m.from, inTable: true)) | \(Markdown.code(m.to, inTable: true)) | \(m.kind.rawValue) | "
                out += "\(m.users) | \(m.moves) | \(Format.percent(on == 0 ? nil : Double(m.users) / Double(on))) |\n"
            }
        }
        if !exits.isEmpty {
            out += "\n## Where users last viewed a step\n\n| step | users | completed | in progress | abandoned |\n|---|---:|---:|---:|---:|\n"
            for e in exits {
                out += "| \(Markdown.code(e.step, inTable: true)) | \(e.users) | \(e.completed) | \(e.inProgress) | \(e.abandoned) |\n"
            }
            let abandoned = exits.filter { !$0.abandonedLastEvents.isEmpty }
            if !abandoned.isEmpty {
                out += "\n## What the abandoned users did last\n\n| last viewed | last event | users | share |\n|---|---|---:|---:|\n"
                for e in abandoned {
                    for last in e.abandonedLastEvents {
                        out += "| \(Markdown.code(e.step, inTable: true)) | \(Markdown.code(last.text, inTable: true)) | "
                        out += "\(last.users) | \(Format.percent(last.share)) |\n"
                    }
                }
            }
        }
        if !returns.isEmpty {
            out += "\n## Returns after more than \(DurationText.compact(selection.idleSeconds)) away\n\n| step left | users | returns | "
            out += ReturnKind.allCases.map { $0.rawValue.replacingOccurrences(of: "_", with: " ") }.joined(separator: " | ")
            out += " |\n|---|---:|---:|" + String(repeating: "---:|", count: ReturnKind.allCases.count) + "\n"
            for r in returns {
                out += "| \(Markdown.code(r.step, inTable: true)) | \(r.users) | \(r.returns) | "
                out += ReturnKind.allCases.map { String(r.cameBack[$0.rawValue] ?? 0) }.joined(separator: " | ") + " |\n"
            }
        }
        if let b = timeBetween {
            out += "\n## Time from \(Markdown.code(b.from)) to \(Markdown.code(b.to))\n\n"
            out += "\(b.users) users: p50 \(DurationText.compact(b.p50)), p75 \(DurationText.compact(b.p75)), "
            out += "p90 \(DurationText.compact(b.p90)), p95 \(DurationText.compact(b.p95)), mean \(DurationText.compact(b.mean)).\n"
        }
        return out
    }
}
