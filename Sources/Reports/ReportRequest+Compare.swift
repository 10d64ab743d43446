import FunnelModel

extension Inputs {
    /// `--compare previous` (the same length just before `--since`) or `--compare A..B` (each
    /// RFC 3339 or a date): the period to compare the report's own period with. The report's
    /// period needs both ends, and the two periods must not share time.
    public static func comparedPeriod(_ text: String, since: Timestamp?, until: Timestamp?) throws -> (since: Timestamp, until: Timestamp) {
        guard let since, let until else {
            let missing = [since == nil ? "--since" : nil, until == nil ? "--until" : nil].compactMap { $0 }.joined(separator: " and ")
            throw RequestError("--compare \(text) needs \(missing): the report's own period, to compare "
                               + (text == "previous" ? "with the same length just before it" : "the other period with"))
        }
        if text == "previous" {
            return (Timestamp(micros: since.micros - (until.micros - since.micros)), since)
        }
        let ends = text.components(separatedBy: "..")
        guard ends.count == 2, !ends[0].isEmpty, !ends[1].isEmpty else {
            throw RequestError("--compare \"\(text)\": use previous or SINCE..UNTIL (2026-10-01..2026-10-08)")
        }
        let start = try time(ends[0], option: "--compare")
        let end = try time(ends[1], option: "--compare")
        guard start < end else {
            throw RequestError("--compare \(text): its end (\(end)) is not after its start (\(start)): the period holds no time")
        }
        guard end <= since || start >= until else {
            throw RequestError("--compare \(text) overlaps the report's period (--since \(since) --until \(until)): "
                               + "periods compared must not share time")
        }
        return (start, end)
    }
}

extension ReportRequest {
    /// The query of the period `--compare` names, the same in all but its window; nil without
    /// `--compare`.
    func comparedQuery(_ query: ReportQuery) throws -> ReportQuery? {
        guard let compare else { return nil }
        if !alsoBy.isEmpty || by != nil {
            throw RequestError("--compare and --by: compare two periods of all the selected users, or break one period down; not both")
        }
        let period = try Inputs.comparedPeriod(compare, since: query.since, until: query.until)
        var other = query
        other.since = period.since
        other.until = period.until
        return other
    }
}
