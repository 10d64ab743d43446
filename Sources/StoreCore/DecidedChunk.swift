import LineParsing

/// Parsed batches whose every line the ingest driver decided, handed to a store's writer to
/// record (`InputWriting.write`).
package struct DecidedChunk {
    /// The batches, in input order.
    package var batches: [LineBatch]
    /// One verdict a line, in line order across the batches.
    package var verdicts: [LineVerdict]
    /// The input's (flow, step, event) keys so far, by the parser's numbers (`LineKeys.key`):
    /// every line with an event names one of them.
    package var keys: [IngestKey]

    /// Calls `body` with each line, its batch's bytes and its verdict, in order.
    package func forEachLine(_ body: (ParsedLine, UnsafeBufferPointer<UInt8>, LineVerdict) throws -> Void) rethrows {
        try forEachLine { line, b, verdict, _ in try body(line, b, verdict) }
    }

    /// Calls `body` with each line, its batch's bytes, its verdict and its batch (for its
    /// vendor cuts and rejections), in order.
    package func forEachLine(_ body: (ParsedLine, UnsafeBufferPointer<UInt8>, LineVerdict, _ batch: LineBatch) throws -> Void) rethrows {
        var v = 0
        for batch in batches {
            // Lines read in place: a line is a few hundred bytes, not copied for each call.
            try batch.bytes.withUnsafeBufferPointer { b in
                try batch.lines.withUnsafeBufferPointer { lines in
                    for i in lines.indices {
                        try body(lines[i], b, verdicts[v], batch)
                        v += 1
                    }
                }
            }
        }
    }
}
