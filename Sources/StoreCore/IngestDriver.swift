import LogFiles
import LineParsing
import Foundation

/// The one ingest loop every store runs: each input's content hash, the store's ledger check
/// and writer (`IngestBackend`), the parse on the parsing thread with the next input read
/// ahead, progress after each batch, and the run's summary. Input faults (unreadable,
/// truncated or corrupt) are reported in the summary and the run goes on; store failures throw.
package struct IngestDriver<Backend: IngestBackend> {
    package let backend: Backend
    package let options: IngestOptions
    /// Each defined flow's step ids, for the classifier's `unplanned`.
    private let stepsByFlow: [String: Set<String>]
    /// Parsed batches going round between the parsing thread and the writer, every input's.
    private let batches = BatchPool()

    package init(backend: Backend, options: IngestOptions) {
        self.backend = backend
        self.options = options
        stepsByFlow = options.stepsByFlow
    }

    package func run(_ inputs: [InputSource], progress: ((IngestProgress) -> Void)?) throws -> IngestSummary {
        let clockStart = DispatchTime.now().uptimeNanoseconds
        Allocator.returnLargeBlocks()
        var summary = IngestSummary()
        summary.files = inputs.count
        summary.flowsChecked = !options.flows.isEmpty
        var unplanned: [UnplannedKey: Int] = [:]
        // The next input's parse, started while this one is written and committed.
        var ahead: (index: Int, content: InputContent.Ahead, run: ParseRun)?
        // Input bytes read since freed memory was last given back.
        var readSinceRelease: Int64 = 0
        defer { ahead?.run.cancel() }
        // The lines the inputs after each one hold at most.
        var linesAfter = [Int64](repeating: 0, count: inputs.count)
        for i in inputs.indices.dropLast().reversed() { linesAfter[i] = linesAfter[i + 1] + inputs[i + 1].expectedLines }
        for (index, input) in inputs.enumerated() {
            var spooled: String?
            defer { if let spooled { unlink(spooled) } }
            let content: InputContent.Hash
            var prefetched: ParseRun?
            defer { prefetched?.cancel() }
            do {
                if let a = ahead, a.index == index, let hash = a.content.value() {
                    content = hash
                    prefetched = a.run
                    ahead = nil
                } else {
                    // A read-ahead whose file could not be hashed then: read again here, which
                    // reports why.
                    ahead?.run.cancel()
                    ahead = nil
                    // Inputs held uncommitted are not held while standard input is waited on.
                    if input.isStandardInput { try backend.flush() }
                    // An input not read ahead (the first) starts parsing before it is hashed, so
                    // the hash of a large file runs beside its parse, not before it.
                    if options.parallel, !input.isStandardInput { prefetched = startParse(input, skipLines: 0) }
                    let read = try InputContent.of(input)
                    content = read.0
                    spooled = read.spooled
                }
            } catch let e as InputError {
                summary.failures.append(.unreadable(input.path, e))
                continue
            }
            let plan = InputPlan(read: spooled.map(InputSource.init(path:)) ?? input, label: input.path, content: content, index: index, count: inputs.count,
                                 linesAfter: linesAfter[index], source: options.source.map(InputSourceRecord.init))
            let outcome = try backend.ingest(plan) { skipLines, writer in
                var run: ParseRun?
                if options.parallel {
                    if let p = prefetched, skipLines == 0 {
                        run = p
                    } else {
                        // A parse read ahead from the first line is of no use to a resumed input.
                        prefetched?.cancel()
                        run = startParse(plan.read, skipLines: skipLines)
                    }
                }
                // Whatever ends this input, the parsing thread stops waiting for it.
                defer { run?.cancel() }
                ahead = readAhead(inputs, after: index)
                writer.eventSink = if let run { run.eventSink } else { backend.makeEventSink() }
                return try parse(plan, skipLines: skipLines, run: run, into: writer, progress: progress)
            }
            readSinceRelease += content.size
            if readSinceRelease >= Tuning.releaseAfterBytes {
                Allocator.releaseFreeMemory()
                readSinceRelease = 0
            }
            switch outcome {
            case .skipped(let s): summary.skipped.append(s)
            case .read(let r): summary.add(r, unplanned: &unplanned)
            }
        }
        summary.unplannedBy = IngestSummary.sortedUnplanned(unplanned)
        try backend.flush()
        try backend.finish(summary)
        summary.elapsedSeconds = Double(DispatchTime.now().uptimeNanoseconds - clockStart) / 1e9
        return summary
    }

    /// Reads the input into `writer` (from `run`, or parsed here when the run is not
    /// parallel): each batch goes to the classifier, which decides its lines once the
    /// writer's chunk is full, before a segment ends and at the input's end; progress after
    /// each batch.
    private func parse(_ plan: InputPlan, skipLines: Int, run: ParseRun?, into writer: Backend.Writer,
                       progress: ((IngestProgress) -> Void)?) throws -> InputRead {
        var classifier = LineClassifier(flowSteps: stepsByFlow)
        func handle(_ batch: LineBatch) throws {
            try classifier.add(batch, label: plan.label)
            if classifier.isDue(for: writer) { try classifier.decide(into: writer) }
            progress?(IngestProgress(inputIndex: plan.index, inputCount: plan.count, path: plan.label, bytesRead: batch.bytesRead,
                                     size: plan.content.size, lines: classifier.result.counts.lines))
            if let segment = batch.segmentEnd {
                try classifier.decide(into: writer)
                try writer.endSegment(segment, totals: SegmentTotals(counts: classifier.result.counts, flows: classifier.takeFlowTotals()))
            }
        }
        let end: ParseEnd
        if let run {
            end = try run.forEach(idle: { try writer.idle() }, handle)
        } else {
            end = try LineParser.run(input: plan.read, batchLines: options.batchLines, batchBytes: LineParser.defaultBatchBytes,
                                     eventSink: writer.eventSink, skipLines: skipLines, source: options.source) {
                try handle($0)
                return true
            }
        }
        try classifier.decide(into: writer)
        let error = classifier.end(end, label: plan.label, skipped: skipLines)
        return InputRead(end: end, result: classifier.result, error: error, flows: classifier.takeFlowTotals())
    }

    /// Starts parsing `input` on the parsing thread (behind any input parsed before it), from
    /// the line after `skipLines`.
    private func startParse(_ input: InputSource, skipLines: Int) -> ParseRun {
        ParseRun(input: input, batchLines: options.batchLines, eventSink: backend.makeEventSink(), skipLines: skipLines,
                 source: options.source, pool: batches)
    }

    /// The hash and parse of the input after `index`, queued now on the parsing thread: only
    /// a file can be read ahead (standard input is spooled first), and one that cannot be
    /// hashed then is reported when its turn comes.
    private func readAhead(_ inputs: [InputSource], after index: Int) -> (index: Int, content: InputContent.Ahead, run: ParseRun)? {
        let next = index + 1
        guard options.parallel, next < inputs.count, !inputs[next].isStandardInput else { return nil }
        let content = InputContent.Ahead(inputs[next])
        return (next, content, startParse(inputs[next], skipLines: 0))
    }
}
