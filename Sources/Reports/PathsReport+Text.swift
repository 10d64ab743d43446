import FunnelModel

extension PathsReport {
    /// The moves off the expected path shown in text, most users first.
    static let textFindings = 12
    /// The ways out of a step shown in text, most users first.
    static let textWaysOut = 5
    /// The abandoned users' last events shown in text per step.
    static let textLastEvents = 3

    var usersText: String {
        "users    started \(users.started) · viewed a step \(users.viewed) · moved \(users.moved)"
    }

    /// The moves that are not the path's next step: back, skip and off-path, most users first.
    var findings: [Transition] {
        transitions.enumerated().filter { $0.element.kind != .forward }.sorted { a, b in
            if a.element.users != b.element.users { return a.element.users > b.element.users }
            if a.element.moves != b.element.moves { return a.element.moves > b.element.moves }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// `from → to` as the text shows a move.
    static func arrow(_ from: String, _ to: String) -> String { "\(from) → \(to)" }

    /// The users who moved on from a step (its ways out share them).
    func movedOn(_ step: String) -> Int { steps.first { $0.step == step }?.movedOn ?? 0 }

    /// Text for a terminal: 80 columns; event data escaped (`TerminalText`), cut to its column.
    public func text() -> String {
        let t = TerminalText.escape
        var out = Format.wrapped("Paths · " + selection.heading(t), indent: 0) + Format.wrapped(selection.scope(t), indent: 0)
        out += usersText + "\n"
        out += findingsText() + waysOutText() + exitsText() + returnsText() + slowestPairsText() + timeBetweenText()
        return out
    }

    func findingsText() -> String {
        let all = findings
        guard !transitions.isEmpty else { return "\nno moves: nobody in the selection viewed two different steps\n" }
        guard !all.isEmpty else { return "\nno move off the expected path: every move went to the path's next step\n" }
        var out = "\nmoves off the expected path, most users first\n"
        out += "  " + Format.pad("kind", 10) + Format.pad("move", 50) + Format.pad("users", 8, right: true)
            + Format.pad("moves", 8, right: true) + "\n"
        for m in all.prefix(Self.textFindings) {
            out += "  " + Format.pad(m.kind.rawValue, 10) + Format.pad(Self.arrow(m.from, m.to), 50)
                + Format.pad(String(m.users), 8, right: true) + Format.pad(String(m.moves), 8, right: true) + "\n"
        }
        if all.count > Self.textFindings { out += "  … \(all.count - Self.textFindings) more (all in --format json)\n" }
        return out
    }

    func waysOutText() -> String {
        guard !transitions.isEmpty else { return "" }
        var out = "\nways out of each step: users, and their share of those who moved on from it\n"
        var from: String?
        var shown = 0, more = 0
        func flush() { if more > 0 { out += "    … \(more) more ways out\n" } }
        for m in transitions {
            if m.from != from {
                flush()
                from = m.from
                shown = 0
                more = 0
                let title = "── " + TerminalText.fit(m.from, width: 40) + " · \(movedOn(m.from)) moved on "
                out += title + String(repeating: "─", count: max(3, 78 - title.count)) + "\n"
            }
            guard shown < Self.textWaysOut else { more += 1; continue }
            shown += 1
            let share = movedOn(m.from) == 0 ? nil : Double(m.users) / Double(movedOn(m.from))
            out += "  → " + Format.pad(m.to, 44) + Format.pad(m.kind.rawValue, 10) + Format.pad(String(m.users), 10, right: true)
                + Format.pad(Format.percent(share), 8, right: true) + "\n"
        }
        flush()
        return out
    }

    func exitsText() -> String {
        guard !exits.isEmpty else { return "" }
        var out = "\nwhere users last viewed a step\n"
        out += Format.pad("step", 30) + Format.pad("users", 8, right: true) + Format.pad("completed", 11, right: true)
            + Format.pad("in progress", 13, right: true) + Format.pad("abandoned", 11, right: true) + "\n"
        for e in exits {
            out += Format.pad(e.step, 30) + Format.pad(String(e.users), 8, right: true) + Format.pad(String(e.completed), 11, right: true)
                + Format.pad(String(e.inProgress), 13, right: true) + Format.pad(String(e.abandoned), 11, right: true) + "\n"
        }
        // Users whose last event was the view itself did nothing after it: one line for all.
        let onTheView = exits.filter { $0.abandoned > 0 && $0.abandonedLastEvents.allSatisfy(\.isTheView) }
        let acted = exits.filter { $0.abandoned > 0 && !$0.abandonedLastEvents.allSatisfy(\.isTheView) }
        guard !acted.isEmpty || !onTheView.isEmpty else { return out }
        out += "\nwhat the abandoned users did last, by the step they last viewed\n"
        for e in acted {
            out += "  " + TerminalText.fit(e.step, width: 60) + " · \(e.abandoned) abandoned\n"
            for last in e.abandonedLastEvents.prefix(Self.textLastEvents) {
                out += "    " + Format.pad(last.isTheView ? "(nothing after the view)" : last.text, 56)
                    + Format.pad(String(last.users), 8, right: true) + Format.pad(Format.percent(last.share), 8, right: true) + "\n"
            }
            if e.abandonedLastEvents.count > Self.textLastEvents {
                out += "    … \(e.abandonedLastEvents.count - Self.textLastEvents) more (all in --format json)\n"
            }
        }
        if !onTheView.isEmpty {
            out += Format.wrapped("nothing after the view: " + onTheView.map { "\($0.step) \($0.abandoned)" }.joined(separator: ", "), indent: 2)
        }
        return out
    }

    func returnsText() -> String {
        guard !returns.isEmpty else { return "\nno returns: nobody viewed a step again after more than \(DurationText.compact(selection.idleSeconds)) away\n" }
        var out = "\nreturns after more than \(DurationText.compact(selection.idleSeconds)) away, by the step left: where users came back\n"
        let kinds = ReturnKind.allCases
        // `off path` fills 8 columns: its column is one wider, to keep a space before it.
        let width = { (k: ReturnKind) in k == .offPath ? 9 : 8 }
        out += Format.pad("step left", 23) + Format.pad("users", 6, right: true) + Format.pad("returns", 8, right: true)
        for k in kinds { out += Format.pad(k.rawValue.replacingOccurrences(of: "_", with: " "), width(k), right: true) }
        out += "\n"
        for r in returns {
            out += Format.pad(r.step, 23) + Format.pad(String(r.users), 6, right: true) + Format.pad(String(r.returns), 8, right: true)
            for k in kinds { out += Format.pad(String(r.cameBack[k.rawValue] ?? 0), width(k), right: true) }
            out += "\n"
        }
        return out
    }

    /// The adjacent pairs shown in text, slowest first.
    static let textSlowestPairs = 3

    /// The adjacent pairs by their median, slowest first (ties in lane order).
    var slowestPairs: [TimeBetween] { TimeBetween.slowest(adjacentPairs) }

    func slowestPairsText() -> String { TimeBetween.slowestText(adjacentPairs, count: Self.textSlowestPairs) }

    func timeBetweenText() -> String {
        guard let b = timeBetween else { return "" }
        var out = "\n" + Format.wrapped("time from \(b.from) to \(b.to): first view of \(b.from) to the first view of \(b.to) after it", indent: 0)
        guard b.users > 0 else { return out + "nobody in the selection viewed \(TerminalText.escape(b.from)) and later \(TerminalText.escape(b.to))\n" }
        out += "users \(b.users) · p50 \(DurationText.compact(b.p50)) · p75 \(DurationText.compact(b.p75)) · p90 \(DurationText.compact(b.p90))"
            + " · p95 \(DurationText.compact(b.p95)) · mean \(DurationText.compact(b.mean))\n"
        let most = b.histogram.map(\.users).max() ?? 0
        for bin in b.histogram {
            let range = DurationText.compact(bin.fromSeconds) + "–" + DurationText.compact(bin.toSeconds)
            out += "  " + Format.pad(range, 18) + Format.bar(most == 0 ? 0 : Double(bin.users) / Double(most), width: 40)
                + Format.pad(String(bin.users), 8, right: true) + "\n"
        }
        return out
    }
}
