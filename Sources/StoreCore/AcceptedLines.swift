import FunnelModel

/// An input's accepted lines with their seqs, as runs of consecutive lines given consecutive
/// seqs, in line order. Only a line that is not accepted starts a new run, so this stays
/// small however long the input.
public struct AcceptedLines: Sendable {
    private var runs: [(line: Int, seq: Int64, count: Int)] = []

    public init() {}

    /// Records that `line` was accepted as `seq` (lines in increasing order).
    @inline(__always)
    public mutating func append(line: Int, seq: Int64) {
        if let last = runs.last, last.line + last.count == line, last.seq + Int64(last.count) == seq {
            runs[runs.count - 1].count += 1
        } else {
            runs.append((line, seq, 1))
        }
    }

    /// The seq `line` was accepted as; nil when it was not accepted (a duplicate, a conflict).
    public func seq(ofLine line: Int) -> Int64? {
        // The last run starting at or before the line.
        let lo = partitionPoint(runs.count) { runs[$0].line <= line }
        guard lo > 0 else { return nil }
        let run = runs[lo - 1]
        return line < run.line + run.count ? run.seq + Int64(line - run.line) : nil
    }
}
