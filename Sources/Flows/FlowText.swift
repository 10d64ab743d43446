import FunnelModel

/// Human and JSON views of flows for the CLI: the list, the graph with lanes side by side,
/// the expected path. Text fits the given width (80 columns by default).
public enum FlowText {
    // MARK: list

    public static func list(_ entries: [FlowCatalog.Entry], width: Int = 80) -> String {
        var rows: [[String]] = [["ID", "TITLE", "VER", "LANES", "STEPS", "SOURCE"]]
        for e in entries {
            rows.append([e.flow.id, e.flow.title, String(e.flow.version), String(e.flow.lanes.count),
                         String(e.flow.steps.count), e.source])
        }
        return table(rows, width: width, shrinkColumn: 1)
    }

    /// Columns separated by two spaces; `shrinkColumn` is cut with … when the row is too wide.
    static func table(_ rows: [[String]], width: Int, shrinkColumn: Int) -> String {
        guard let first = rows.first else { return "" }
        var widths = (0..<first.count).map { c in rows.map { $0[c].count }.max() ?? 0 }
        let total = widths.reduce(0, +) + 2 * (widths.count - 1)
        // Too wide: the last column (a file path) loses its beginning, down to 20 columns,
        // then `shrinkColumn` its end, down to 12, then the last column again.
        let last = widths.count - 1
        if total > width { widths[last] = max(min(widths[last], 20), widths[last] - (total - width)) }
        var now = widths.reduce(0, +) + 2 * (widths.count - 1)
        if now > width { widths[shrinkColumn] = max(12, widths[shrinkColumn] - (now - width)) }
        now = widths.reduce(0, +) + 2 * (widths.count - 1)
        if now > width { widths[last] = max(8, widths[last] - (now - width)) }
        var out = ""
        for row in rows {
            var line = ""
            for (c, cell) in row.enumerated() {
                let text = c == last && c != shrinkColumn ? TextCell.cutLeft(cell, widths[c]) : TextCell.cut(cell, widths[c])
                line += c == row.count - 1 ? text : TextCell.pad(text, widths[c]) + "  "
            }
            out += trimRight(line) + "\n"
        }
        return out
    }

    // MARK: graph

    /// The flow as text: lanes side by side, a shared step on the same row in every lane
    /// that has it, conditions (`if …`) and flags (`flag …`) under the step they gate.
    public static func graph(_ flow: FlowDefinition, width: Int = 80) -> String {
        var out = "\(flow.id) — \(flow.title) (version \(flow.version))\n"
        if let key = flow.laneKey { out += "lanes picked by \(key)\n" }
        out += "\n"
        let lanes = flow.lanes
        let n = max(1, lanes.count)
        let gutter = 3
        let colWidth = max(16, (width - gutter * (n - 1)) / n)

        var header: [[String]] = []
        for lane in lanes {
            var cell = wrap(lane.id + (lane.title.map { " — " + $0 } ?? ""), colWidth, indent: 0)
            if let w = lane.when { cell += wrap("when " + w, colWidth, indent: 2) }
            header.append(cell)
        }
        let headerHeight = header.map(\.count).max() ?? 0
        for k in header.indices {
            header[k] += Array(repeating: "", count: headerHeight - header[k].count)
            header[k].append(String(repeating: "-", count: min(colWidth, 40)))
        }
        out += render(header, colWidth: colWidth, gutter: gutter)
        for row in alignedRows(lanes) {
            var cells: [[String]] = []
            for (k, lane) in lanes.enumerated() {
                guard let j = row[k] else { cells.append([]); continue }
                cells.append(cell(flow, lane.steps[j], colWidth))
            }
            out += render(cells, colWidth: colWidth, gutter: gutter)
        }
        out += "\n[entry] no telemetry  [terminal] may end the flow  (optional) may be passed over\n"
        out += "if: shown only when the condition holds  flag: shown only when the flag is on\n"
        if !flow.flags.isEmpty {
            out += "\nflags:\n"
            for f in flow.flags {
                out += wrap("\(f.id) (default \((f.default ?? false) ? "on" : "off"))" + (f.description.map { ": " + $0 } ?? ""), width - 2, indent: 4)
                    .map { "  " + $0 + "\n" }.joined()
            }
        }
        if !flow.cohorts.isEmpty {
            out += "\ncohorts:\n"
            for c in flow.cohorts {
                out += wrap("\(c.id): \(c.where)", width - 2, indent: 4).map { "  " + $0 + "\n" }.joined()
            }
        }
        return out
    }

    static func cell(_ flow: FlowDefinition, _ ls: FlowDefinition.LaneStep, _ width: Int) -> [String] {
        let step = flow.step(ls.id)
        var head = ls.id
        if let kind = step?.kind, kind != .screen { head += " [\(kind.rawValue)]" }
        if step == nil { head += " [unknown step]" }
        if step?.optional == true { head += " (optional)" }
        var lines = wrap(head, width, indent: 2)
        for w in [step?.when, ls.when].compactMap({ $0 }) { lines += wrap("  if " + w, width, indent: 5) }
        for f in [step?.flag, ls.flag].compactMap({ $0 }) { lines += wrap("  flag " + f, width, indent: 5) }
        return lines
    }

    /// Rows of lane-step indices, one entry per lane (nil: the lane has nothing on that row).
    /// A step next on several lanes, and not waiting further down any other lane, shares a
    /// row; when lanes list shared steps in different orders, the step whose twin is furthest
    /// away goes first on its own.
    static func alignedRows(_ lanes: [FlowDefinition.Lane]) -> [[Int?]] {
        var pos = Array(repeating: 0, count: lanes.count)
        var rows: [[Int?]] = []
        func remaining(_ k: Int) -> ArraySlice<FlowDefinition.LaneStep> { lanes[k].steps[pos[k]...] }
        while (0..<lanes.count).contains(where: { pos[$0] < lanes[$0].steps.count }) {
            var row: [Int?] = Array(repeating: nil, count: lanes.count)
            var placed = false
            for k in 0..<lanes.count where pos[k] < lanes[k].steps.count && row[k] == nil {
                let id = lanes[k].steps[pos[k]].id
                let blocked = (0..<lanes.count).contains { j in
                    j != k && pos[j] < lanes[j].steps.count && lanes[j].steps[pos[j]].id != id && remaining(j).contains { $0.id == id }
                }
                if blocked { continue }
                for j in 0..<lanes.count where pos[j] < lanes[j].steps.count && lanes[j].steps[pos[j]].id == id && row[j] == nil {
                    row[j] = pos[j]
                }
                placed = true
            }
            if !placed {
                // Crossed orders: place the step whose twin lies furthest down another lane.
                var best = (lane: -1, distance: -1)
                for k in 0..<lanes.count where pos[k] < lanes[k].steps.count {
                    let id = lanes[k].steps[pos[k]].id
                    var d = Int.max
                    for j in 0..<lanes.count where j != k && pos[j] < lanes[j].steps.count {
                        if let at = remaining(j).firstIndex(where: { $0.id == id }) { d = min(d, at - pos[j]) }
                    }
                    if d > best.distance { best = (k, d) }
                }
                row[best.lane] = pos[best.lane]
            }
            for k in 0..<lanes.count { if row[k] != nil { pos[k] += 1 } }
            rows.append(row)
        }
        return rows
    }

    static func render(_ cells: [[String]], colWidth: Int, gutter: Int) -> String {
        let height = cells.map(\.count).max() ?? 0
        var out = ""
        for r in 0..<height {
            var line = ""
            for (k, cell) in cells.enumerated() {
                let text = r < cell.count ? cell[r] : ""
                line += k == cells.count - 1 ? text : TextCell.pad(text, colWidth) + String(repeating: " ", count: gutter)
            }
            out += trimRight(line) + "\n"
        }
        return out
    }

    // MARK: path

    /// The expected path: the lane and why, then every step with + shown, - skipped (why) or
    /// ? undetermined (why).
    public static func path(_ flow: FlowDefinition, _ path: ExpectedPath, width: Int = 80) -> String {
        var out = "\(flow.id): lane \(path.lane ?? "not chosen") (\(path.laneReason))\n"
        let idWidth = min(28, path.entries.map(\.step.count).max() ?? 0)
        for e in path.entries {
            let mark: String, reason: String
            switch e.status {
            case .shown: mark = "+"; reason = ""
            case .skipped(let why): mark = "-"; reason = "skipped: " + why
            case .undetermined(let why): mark = "?"; reason = "undetermined: " + why
            }
            let kind = flow.step(e.step).map { $0.kind == .screen ? "" : " [\($0.kind.rawValue)]" } ?? ""
            let head = "  \(mark) " + TextCell.pad(e.step, idWidth)
            if reason.isEmpty && kind.isEmpty {
                out += trimRight(head) + "\n"
            } else {
                let lines = wrap((kind.isEmpty ? "" : kind.trimmingLeadingSpace + (reason.isEmpty ? "" : " ")) + reason,
                                 max(20, width - head.count - 2), indent: 0)
                for (i, l) in lines.enumerated() {
                    out += (i == 0 ? head + "  " : String(repeating: " ", count: head.count + 2)) + l + "\n"
                }
            }
        }
        out += "\(path.shownSteps.count) of \(path.entries.count) steps on the path\n"
        return out
    }

    // MARK: JSON

    /// The documented JSON of `funnel flows`: an array of flow objects
    /// {id, title, version, description, laneKey, source, replacesBuiltIn,
    ///  lanes: [{id, title, when, steps: [{id, when, flag}]}],
    ///  steps: [{id, kind, title, note, lanes, collects: [{key, values}], when, flag, optional}],
    ///  flags: [{id, description, default}], cohorts: [{id, title, where}]}.
    /// Absent optional values are null; object keys are sorted.
    public static func json(_ entries: [FlowCatalog.Entry]) -> JSONValue {
        .array(entries.map { json($0.flow, source: $0.source, replacesBuiltIn: $0.replacesBuiltIn) })
    }

    public static func json(_ flow: FlowDefinition, source: String, replacesBuiltIn: Bool) -> JSONValue {
        func s(_ v: String?) -> JSONValue { v.map(JSONValue.string) ?? .null }
        return .object([
            "id": .string(flow.id),
            "title": .string(flow.title),
            "version": .number(String(flow.version)),
            "description": s(flow.description),
            "laneKey": s(flow.laneKey),
            "source": .string(source),
            "replacesBuiltIn": .bool(replacesBuiltIn),
            "lanes": .array(flow.lanes.map { lane in
                .object(["id": .string(lane.id), "title": s(lane.title), "when": s(lane.when),
                         "steps": .array(lane.steps.map { .object(["id": .string($0.id), "when": s($0.when), "flag": s($0.flag)]) })])
            }),
            "steps": .array(flow.steps.map { step in
                .object(["id": .string(step.id), "kind": .string(step.kind.rawValue), "title": s(step.title),
                         "note": s(step.note), "lanes": .array(flow.lanes(of: step.id).map(JSONValue.string)),
                         "collects": .array(step.collects.map { c in
                             .object(["key": .string(c.key), "values": c.values.map { .array($0.map(JSONValue.string)) } ?? .null])
                         }),
                         "when": s(step.when), "flag": s(step.flag), "optional": .bool(step.optional ?? false)])
            }),
            "flags": .array(flow.flags.map {
                .object(["id": .string($0.id), "description": s($0.description), "default": .bool($0.default ?? false)])
            }),
            "cohorts": .array(flow.cohorts.map {
                .object(["id": .string($0.id), "title": s($0.title), "where": .string($0.where)])
            }),
        ])
    }

    // MARK: text helpers

    static func trimRight(_ s: String) -> String {
        var t = Substring(s)
        while t.last == " " { t = t.dropLast() }
        return String(t)
    }

    /// Wraps at spaces to `width`; continuation lines get `indent` spaces; a word longer than
    /// the line is cut.
    static func wrap(_ text: String, _ width: Int, indent: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        let lead = String(text.prefix { $0 == " " })
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            let prefix = lines.isEmpty ? lead : String(repeating: " ", count: indent)
            if line.isEmpty {
                line = prefix + word
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(repeating: " ", count: indent) + word
            }
            while line.count > width {
                lines.append(String(line.prefix(width)))
                line = String(repeating: " ", count: indent) + line.dropFirst(width)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}

extension String {
    var trimmingLeadingSpace: String { String(drop { $0 == " " }) }
}
