import FunnelModel
import LogFiles
import Foundation

extension IngestSummary {
    /// The `--format json` form: one object, keys sorted. Documented keys: files, lines,
    /// accepted, duplicates, conflicts, quarantined, quarantined_by, unplanned,
    /// unplanned_checked_against_flows, unplanned_by[], skipped[], resumed[], failures[],
    /// elapsed_seconds, events_per_second.
    public var json: JSONValue {
        func n(_ v: Int) -> JSONValue { .number(String(v)) }
        func d(_ v: Double) -> JSONValue { .number(String(format: "%.3f", v)) }
        var quarantinedBy: [String: JSONValue] = [:]
        for (k, v) in self.quarantinedBy { quarantinedBy[k.rawValue] = n(v) }
        return .object([
            "files": n(files),
            "lines": n(lines),
            "accepted": n(accepted),
            "duplicates": n(duplicates),
            "conflicts": n(conflicts),
            "quarantined": n(quarantined),
            "quarantined_by": .object(quarantinedBy),
            "unplanned": n(unplanned),
            "unplanned_checked_against_flows": .bool(flowsChecked),
            "unplanned_by": .array(unplannedBy.map {
                .object(["flow": .string($0.flow), "step": $0.step.map { .string($0) } ?? .null,
                         "event": .string($0.event), "count": n($0.count)])
            }),
            "skipped": .array(skipped.map {
                .object(["path": .string($0.path), "sha256": .string($0.sha256),
                         "previous_path": .string($0.previousPath), "previous_outcome": .string($0.previousOutcome.rawValue)])
            }),
            "resumed": .array(resumed.map { .object(["path": .string($0.path), "after_line": n($0.afterLine)]) }),
            "failures": .array(failures.map {
                .object(["path": .string($0.path), "kind": .string($0.kind.rawValue), "offset": .number(String($0.offset)),
                         "message": .string($0.message), "lines_kept": n($0.linesKept)])
            }),
            "elapsed_seconds": d(elapsedSeconds),
            "events_per_second": .number(String(Int(eventsPerSecond.rounded()))),
        ])
    }

    /// The human summary, within 80 columns; names from the logs (events, steps, paths)
    /// escaped for a terminal (`TerminalText`).
    public func text(store: String) -> String {
        let g = grouped
        let t = TerminalText.escape
        func row(_ label: String, _ v: Int, _ note: String = "") -> String {
            let value = g(v)
            // The label in 14 columns (at least one space after it), the value right in 11.
            let line = "  " + TextCell.pad(label, 13) + " " + TextCell.pad(value, 11, right: true)
            return note.isEmpty ? line : line + "  " + note
        }
        var lines: [String] = []
        let ingested = files - skipped.count
        lines.append("ingested \(ingested) of \(files) input\(files == 1 ? "" : "s")")
        lines.append("  store \(t(store))")
        lines.append(String(format: "  in %.2f s, %@ lines/s", elapsedSeconds, g(Int(eventsPerSecond.rounded()))))
        lines.append(row("lines", self.lines))
        lines.append(row("accepted", accepted))
        lines.append(row("duplicates", duplicates))
        lines.append(row("conflicts", conflicts))
        lines.append(row("quarantined", quarantined, quarantined > 0 ? "(funnel quarantine lists them)" : ""))
        for (code, count) in quarantinedBy.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key.rawValue < $1.key.rawValue }) {
            lines.append("    " + TextCell.pad(code.rawValue, 19) + " " + g(count))
        }
        lines.append(row("unplanned", unplanned, flowsChecked ? "" : "(names only: needs flow definitions)"))
        for u in unplannedBy.prefix(5) {
            let what = "\(u.flow)/\(u.step ?? "-") \(u.event)"
            lines.append("    " + TerminalText.fit(what, width: 60) + "  " + g(u.count))
        }
        for s in skipped {
            let same = s.previousPath == s.path ? "" : " as \(s.previousPath)"
            lines.append(t("skipped \(s.path): already ingested\(same) (\(s.previousOutcome.rawValue))"))
        }
        for r in resumed {
            lines.append("resumed \(t(r.path)) after line \(g(r.afterLine)), where an earlier run stopped")
        }
        for f in failures {
            lines.append(t(f.text))
        }
        return lines.joined(separator: "\n")
    }
}

extension IngestSummary.Failure {
    /// One line: what failed, where and why, and what of the input was kept.
    public var text: String {
        switch kind {
        case .unreadable: return "unreadable: \(message)"
        case .unsupported: return "not read: \(message) (nothing stored)"
        case .truncated where beforeReading, .corrupt where beforeReading: return "not read: \(message) (nothing stored)"
        case .truncated, .corrupt:
            return "partial: \(message) (kept \(grouped(linesKept)) lines)"
        }
    }
}

extension QuarantineEntry {
    /// One JSON object: path, line, byte_offset, code, reason, raw_base64, and raw_text when
    /// the bytes are valid UTF-8.
    public var json: JSONValue {
        let text = raw.withUnsafeBufferPointer { UTF8Check.firstInvalid($0) == nil } ? JSONValue.string(String(decoding: raw, as: UTF8.self)) : .null
        return .object([
            "path": .string(inputPath), "line": .number(String(line)), "byte_offset": .number(String(byteOffset)),
            "code": .string(code.rawValue), "reason": .string(reason), "raw_base64": .string(Data(raw).base64EncodedString()),
            "raw_text": text,
        ])
    }

    /// A printable preview of the raw bytes, at most `limit` characters and an escape never
    /// cut: invalid UTF-8 as \xNN, control characters as `TerminalText` writes them.
    public func preview(limit: Int) -> String {
        var out = ""
        var count = 0
        raw.withUnsafeBufferPointer { b in
            var i = 0
            while i < b.count && count < limit {
                let c = b[i]
                if c >= 0x20 && c < 0x7F {
                    out.append(Character(Unicode.Scalar(c))); i += 1
                } else if c >= 0x80, let len = UTF8Check.sequenceLength(b, at: i) {
                    out += TerminalText.escape(String(decoding: UnsafeBufferPointer(rebasing: b[i..<(i + len)]), as: UTF8.self)); i += len
                } else if c < 0x80, let e = TerminalText.escaped(Unicode.Scalar(c)) {
                    out += e; i += 1
                } else {
                    out += String(format: "\\x%02X", c); i += 1
                }
                count += 1
            }
            if i < b.count { out += "…" }
        }
        return out
    }
}

extension IngestSummary {
    /// One line for commands that ingest on the way to something else (`funnel report FILES`).
    public var oneLine: String {
        let ingested = files - skipped.count
        var s = "ingested \(ingested) of \(files) input\(files == 1 ? "" : "s"): \(lines) lines, \(accepted) new events, "
        s += "\(duplicates) duplicates, \(conflicts) conflicts, \(quarantined) quarantined"
        if !skipped.isEmpty { s += " (\(skipped.count) already in the store)" }
        return s
    }
}

/// A count with its thousands grouped by commas: 1,234,567.
private func grouped(_ v: Int) -> String {
    let s = String(v)
    var out = ""
    for (i, c) in s.enumerated() {
        if i > 0 && (s.count - i) % 3 == 0 { out += "," }
        out.append(c)
    }
    return out
}
