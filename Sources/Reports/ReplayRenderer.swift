import Foundation
import FunnelModel
import Journeys

/// Terminal colours, on only when asked (a TTY without NO_COLOR).
public struct Palette: Sendable {
    public var enabled: Bool
    public init(enabled: Bool) { self.enabled = enabled }

    func wrap(_ s: String, _ code: String) -> String { enabled ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    func dim(_ s: String) -> String { wrap(s, "2") }
    func bold(_ s: String) -> String { wrap(s, "1") }
    func red(_ s: String) -> String { wrap(s, "31") }
    func green(_ s: String) -> String { wrap(s, "32") }
    func yellow(_ s: String) -> String { wrap(s, "33") }
    func cyan(_ s: String) -> String { wrap(s, "36") }
}

extension Replays {
    /// JSON: one replay as an object, several as an array.
    public func json() throws -> String {
        if replays.count == 1, let only = replays.first { return try only.json() }
        return try FunnelReport.jsonText(replays)
    }

    /// Each replay's text, a blank line between them.
    public func text(palette: Palette = Palette(enabled: false)) -> String {
        replays.map { $0.text(palette: palette) }.joined(separator: "\n")
    }
}

extension Replay {
    public func json() throws -> String { try FunnelReport.jsonText(self) }

    /// Text in 80 columns: the events in order with what the fold made of them, the path,
    /// the deviations and the verdict.
    public func text(palette: Palette = Palette(enabled: false)) -> String {
        let p = palette
        var out = ""
        let t = TerminalText.escape
        out += p.bold(t(userID)) + " · " + t(flowTitle.map { "\($0) (\(flow))" } ?? flow) + "\n"
        out += "as of \(t(Replay.utcClock(asOf))) UTC · idle window \(DurationText.spoken(idleSeconds))\n"
        out += t("lane  " + (lane ?? "undecided") + " — " + laneReason) + "\n"
        out += Format.wrapped(timesNote, indent: 0)
        out += "\n" + p.dim(Format.pad("since", 9) + Format.pad("time (UTC)", 20) + Format.pad("event", 22) + "step") + "\n"
        for e in events {
            if let gap = e.gap { out += p.yellow("        ⋯ \(gap) ⋯") + "\n" }
            let since = e.sinceStartSeconds.map { "+" + Replay.compact($0) } ?? ""
            let name = e.event.hasPrefix("onboarding.") ? String(e.event.dropFirst(11)) : e.event
            let line = Format.pad(since, 9) + Format.pad(Replay.utcClock(e.ts), 20) + Format.pad(name, 22)
                + TerminalText.fit(e.step ?? "", width: 79 - 51)
            out += (e.folded ? line : p.dim(line)) + "\n"
            for n in e.notes { out += Format.wrapped(n, indent: 9, style: { p.cyan($0) }) }
            for f in e.flags { out += Format.wrapped("! " + f, indent: 9, style: { p.red($0) }) }
        }
        out += "\npath (" + t(lane.map { "lane \($0)" } ?? "lane undecided") + ")\n"
        for s in path {
            let plainMark = markCharacter(s)
            let mark: String
            switch s.status {
            case .shown: mark = s.reached ? p.green(plainMark) : (s.eligible ? p.red(plainMark) : plainMark)
            case .skipped, .beforeStart: mark = p.dim(plainMark)
            case .undetermined: mark = plainMark
            }
            var detail = ""
            switch s.status {
            case .shown: detail = s.reached ? "reached" : (s.eligible ? "eligible, not reached" : "not reached")
            case .skipped: detail = "skipped: " + (s.reason ?? "")
            case .undetermined: detail = "undetermined: " + (s.reason ?? "")
            case .beforeStart: detail = "before tracking starts"
            }
            // Wrapped with the mark's plain character, so that colour never changes the lines.
            let plain = Format.wrapped("\(plainMark) " + Format.pad(s.step, 24) + detail, indent: 2, style: { $0 })
            out += "  " + mark + plain.dropFirst(3)
        }
        if !deviations.isEmpty {
            out += "\ndeviations from the flow graph\n"
            for d in deviations { out += Format.wrapped("! " + d, indent: 2, style: { p.yellow($0) }) }
        }
        if afterAsOf > 0 { out += "\n\(afterAsOf) event(s) after as-of are listed but not counted\n" }
        out += "\n" + p.bold("verdict") + "\n"
        out += Format.wrapped(verdict + (currentStep.map { " · current step \($0)" } ?? ""), indent: 2, style: { $0 })
        return out
    }

    /// The path mark of a step, without colour.
    func markCharacter(_ s: Journey.PathStep) -> String {
        switch s.status {
        case .shown: return s.reached ? "✓" : (s.eligible ? "✗" : "·")
        case .skipped: return "–"
        case .undetermined: return "?"
        case .beforeStart: return "○"
        }
    }

    /// Which clock the times are on: UTC, and the offsets the events were written with, so
    /// a time can be matched with the raw log line.
    var timesNote: String {
        let offsets = Set(events.compactMap { Timestamp.parse($0.ts)?.offsetSeconds }).sorted()
        guard !offsets.isEmpty, offsets != [0] else { return "times in UTC, as the events were written" }
        let listed = offsets.map(Replay.offsetText).joined(separator: ", ")
        return "times in UTC; the events were written at UTC\(listed)"
    }

    /// `2026-10-03 10:23:35`: an RFC 3339 time in UTC, to the second; the text itself when it
    /// is not RFC 3339.
    static func utcClock(_ rfc3339: String) -> String {
        guard let t = Timestamp.parse(rfc3339) else { return rfc3339 }
        let utc = t.rfc3339(utc: true)
        guard utc.count > 19 else { return utc }
        return utc.prefix(10) + " " + utc.dropFirst(11).prefix(8)
    }

    /// `+01:00`, `-05:30`, `+00:00`.
    static func offsetText(_ seconds: Int32) -> String {
        let a = abs(Int(seconds))
        let pad = { (v: Int) in v < 10 ? "0\(v)" : "\(v)" }
        return (seconds < 0 ? "-" : "+") + pad(a / 3600) + ":" + pad(a / 60 % 60)
    }

    static func compact(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m\(s % 60 < 10 ? "0" : "")\(s % 60)s" }
        if s < 86_400 { return "\(s / 3600)h\(s / 60 % 60 < 10 ? "0" : "")\(s / 60 % 60)m" }
        return "\(s / 86_400)d\(s / 3600 % 24)h"
    }
}
