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

    /// Each line's seq from the first accepted line to the last, for many lookups: one array
    /// read a line instead of a search among the runs (the runs are searched when the lines
    /// are more than `Tuning.denseAcceptedLines`, to bound the array).
    public struct ByLine: Sendable {
        private let lines: AcceptedLines
        private let first: Int
        private let firstSeq: Int64
        /// The seq of line `first + i` less `firstSeq`, -1 when it was not accepted.
        private let seqs: [Int32]

        /// `denseLimit`: the most lines the array covers (tests make it small).
        init(_ lines: AcceptedLines, denseLimit: Int = Tuning.denseAcceptedLines) {
            self.lines = lines
            let runs = lines.runs
            let first = runs.first?.line ?? 0, firstSeq = runs.first?.seq ?? 0
            self.first = first
            self.firstSeq = firstSeq
            let end = runs.last.map { $0.line + $0.count } ?? first
            guard end - first <= denseLimit else {
                seqs = []
                return
            }
            var seqs = [Int32](repeating: -1, count: end - first)
            seqs.withUnsafeMutableBufferPointer { out in
                for run in runs {
                    let base = Int32(run.seq - firstSeq)
                    for k in 0..<run.count { out[run.line - first + k] = base + Int32(k) }
                }
            }
            self.seqs = seqs
        }

        /// The seq `line` was accepted as; nil when it was not accepted.
        @inline(__always)
        public func seq(ofLine line: Int) -> Int64? {
            guard !seqs.isEmpty else { return lines.seq(ofLine: line) }
            let i = line - first
            guard i >= 0, i < seqs.count, seqs[i] >= 0 else { return nil }
            return firstSeq + Int64(seqs[i])
        }
    }

    /// Every line's seq in one array (`ByLine`), for looking up many of them.
    public var byLine: ByLine { ByLine(self) }

    /// The seq `line` was accepted as; nil when it was not accepted (a duplicate, a conflict).
    public func seq(ofLine line: Int) -> Int64? {
        // The last run starting at or before the line.
        let lo = partitionPoint(runs.count) { runs[$0].line <= line }
        guard lo > 0 else { return nil }
        let run = runs[lo - 1]
        return line < run.line + run.count ? run.seq + Int64(line - run.line) : nil
    }
}
