import FunnelModel
import LogFiles
import LogSources
import Foundation

/// One line as the parser hands it to the writer: where its bytes are in the batch, and
/// either its envelope (string refs rebased into the batch's bytes) or why it was rejected.
package struct ParsedLine: Sendable {
    package var number: Int
    package var offset: Int64
    package var start: Int
    package var count: Int
    package var envelope: Envelope?
    /// Why the line is rejected, as an index into its batch's `rejections` (-1: it is not):
    /// kept aside, so that a line holds no references and copies as plain bytes.
    package var rejected: Int32 = -1
    /// Worked out on the parsing thread for a line with an envelope (see `LineKeys`).
    package var keys = LineKeys()
    /// A vendor line's cuts for its shape, in its batch's `cuts` (nil: its envelope's).
    package var vendorCuts: Range<Int32>?

    /// The line's vendor cuts among its batch's `cuts` (nil: its envelope's). Inlinable: the
    /// writer asks for every line, most of which have none.
    @inlinable
    package func cuts(in batchCuts: [LineShape.Cut]) -> ArraySlice<LineShape.Cut>? {
        vendorCuts.map { batchCuts[Int($0.lowerBound)..<Int($0.upperBound)] }
    }

    /// Why the line is quarantined, from its batch's `rejections` (a line without an
    /// envelope always has a rejection).
    package func quarantineReason(in rejections: [Rejection]) -> Rejection {
        rejections.indices.contains(Int(rejected)) ? rejections[Int(rejected)] : .notJSON(column: 1, detail: "unknown")
    }
}

/// What the writer needs of a line besides its bytes, worked out where it is parsed: its id
/// hash, and the numbers of its (flow, step, event) key, its user and its shape among the
/// input's distinct ones, in first-seen order. A number the writer has not had yet is the
/// next one (it is seen first on this line): the writer looks the value up then, once.
package struct LineKeys: Sendable {
    package var idHash: Int64 = 0
    package var key: Int32 = -1
    package var user: Int32 = -1
    /// -1: no value is cut (the line is kept verbatim).
    package var shape: Int32 = -1
}

/// A run of parsed lines with their bytes, produced on the parsing thread.
package struct LineBatch: Sendable {
    package var bytes: [UInt8] = []
    package var lines: [ParsedLine] = []
    /// Vendor lines' cuts (`ParsedLine.vendorCuts`), batch-absolute.
    package var cuts: [LineShape.Cut] = []
    /// Rejected lines' reasons (`ParsedLine.rejected`).
    package var rejections: [Rejection] = []
    /// Compressed bytes read from the input so far.
    package var bytesRead: Int64 = 0
    /// Set on the batch after which the input's events go to another sink: the writer
    /// commits what it wrote so far as one segment of the input (`InputWriting.endSegment`).
    package var segmentEnd: SegmentEnd?
}

/// The end of one segment of an input: the sink its events were moved to
/// (`ParsedEventSink.detach()`).
package struct SegmentEnd: Sendable {
    package var ended: any ParsedEventSink
}

/// How the parsing of an input ended.
package struct ParseEnd: Sendable {
    package var error: InputError?
    package var droppedTailBytes = 0
    package var lines = 0
}

/// Decompresses, splits and decodes an input, handing batches to `sink`. Runs on any thread.
package enum LineParser {
    /// `spare`: an emptied batch whose buffers the next batch reuses, when one is back.
    /// `skipLines`: lines at the start already stored (a resumed input), split but not parsed.
    /// When a new UTC day starts and `eventSink` is half full, the events so far are detached
    /// from it (the batch before carries a `SegmentEnd`) and it takes the next ones; past its
    /// room, a sink drops events (their users are folded from the log). `source`: the input is
    /// a vendor's export, each line mapped by it (see `VendorLine`); nil: funnel's own lines.
    package static func run(path: String, batchLines: Int, batchBytes: Int,
                    eventSink firstSink: (any ParsedEventSink)? = nil, skipLines: Int = 0,
                    source: SourceMapping? = nil,
                    spare: () -> LineBatch? = { nil },
                    sink: (LineBatch) throws -> Bool) throws -> ParseEnd {
        try run(input: InputSource(path: path), batchLines: batchLines, batchBytes: batchBytes, eventSink: firstSink,
                skipLines: skipLines, source: source, spare: spare, sink: sink)
    }

    /// `run` over any input: a file, standard input, or an entry of a zip archive.
    /// A file whose first member is streamed (a large one) is parsed while that member is
    /// checked on another thread (`ByteStream.onDeferredCheck`): the batches are held until
    /// the check passes (at most `Tuning.bytesAheadOfCheck`). When it does not, or the input
    /// fails before it answers, nothing was handed on: the sink forgets what it took and
    /// the input is parsed again, its member checked first, as any other streamed member.
    /// `bytesAheadOfCheck`: the line bytes held (tests make it small).
    package static func run(input: InputSource, batchLines: Int, batchBytes: Int,
                    eventSink firstSink: (any ParsedEventSink)? = nil, skipLines: Int = 0,
                    source: SourceMapping? = nil, bytesAheadOfCheck: Int = Tuning.bytesAheadOfCheck,
                    spare: () -> LineBatch? = { nil },
                    sink: (LineBatch) throws -> Bool) throws -> ParseEnd {
        do {
            return try parse(input: input, batchLines: batchLines, batchBytes: batchBytes, eventSink: firstSink,
                             skipLines: skipLines, source: source, aheadOfCheck: bytesAheadOfCheck, spare: spare, sink: sink)
        } catch is StartOver {
            firstSink?.forgetAll()
            return try parse(input: input, batchLines: batchLines, batchBytes: batchBytes, eventSink: firstSink,
                             skipLines: skipLines, source: source, aheadOfCheck: nil, spare: spare, sink: sink)
        }
    }

    /// Thrown when the first member's deferred check does not pass: nothing was handed on.
    private struct StartOver: Error {}

    /// `run`'s parse; `aheadOfCheck`: the line bytes held while the first member's check runs
    /// beside it; nil: the check runs first.
    private static func parse(input: InputSource, batchLines: Int, batchBytes: Int,
                              eventSink firstSink: (any ParsedEventSink)?, skipLines: Int,
                              source: SourceMapping?, aheadOfCheck: Int?,
                              spare: () -> LineBatch?,
                              sink: (LineBatch) throws -> Bool) throws -> ParseEnd {
        // One sink for the whole input, held in a constant: the closure per line calls it
        // without retaining it (a variable would be copied for every call).
        let eventSink = firstSink
        let stream: ByteStream
        do { stream = try ByteStream(input: input) } catch let e as InputError { return ParseEnd(error: e) }
        var held = HeldBatches(limit: aheadOfCheck ?? 0)
        if aheadOfCheck != nil { stream.onDeferredCheck = { held.start($0) } }
        let reader = LineReader(stream: stream)
        var decoder = EventDecoder()
        var keyer = LineKeyer()
        var cutter = source.map(SourceCutter.init)
        // The first batch too is one the writer is done with, when there is one: an input's
        // first batch would otherwise be new pages, faulted in for every input.
        var batch: LineBatch
        if let reused = spare() {
            batch = reused
        } else {
            batch = LineBatch()
            batch.bytes.reserveCapacity(batchBytes + LineReader.maxLineLength)
            batch.lines.reserveCapacity(batchLines)
        }
        var stopped = false
        struct Stop: Error {}
        // Waits for the first member's verdict, if one is due: hands the held batches on
        // when the member passed, throws `StartOver` when it did not.
        func settle() throws {
            guard held.isWaiting else { return }
            guard let ready = held.settle() else { throw StartOver() }
            for b in ready {
                guard try sink(b) else { stopped = true; throw Stop() }
            }
        }
        func rebase(_ r: StringRef, line: Int, scratch: Int) -> StringRef {
            let base = Int32(r.inScratch ? scratch : line)
            return StringRef(start: r.start + base, end: r.end + base, inScratch: false)
        }
        /// The largest UTC day of an event time met in the input so far.
        var lastDay = Int64.min
        // Hands the batch on (ending a segment with the events detached into `ended`), and
        // starts the next one.
        func handOn(ended: (any ParsedEventSink)?) throws {
            batch.bytesRead = stream.bytesRead
            if let ended { batch.segmentEnd = SegmentEnd(ended: ended) }
            let used = batch.bytes.count
            if held.isWaiting {
                if held.hold(batch) { try settle() }
            } else {
                guard try sink(batch) else { stopped = true; throw Stop() }
            }
            // The batch went on with its buffers: those of one the writer is done with, else
            // new ones, sized to the last batch with some room (a few batches are held at
            // once, so each is kept snug).
            if let reused = spare() {
                batch = reused
            } else {
                batch = LineBatch()
                batch.bytes.reserveCapacity(min(batchBytes, used + used / 8) + LineReader.maxLineLength / 16)
                batch.lines.reserveCapacity(batchLines)
            }
        }
        do {
            try reader.forEachLine { info, bytes in
                if info.number <= skipLines { return }
                // A vendor line is mapped to its native line, which is decoded; a native line of
                // a shape the input had is matched against it; any other is parsed.
                var vendor = false
                // Whether the decoder read this line (its scratch is this line's).
                var decodedHere = false
                var matchedShape: Int32?
                // The line's envelope, or why it has none: two plain optionals, not a
                // `Result` (whose optional is destroyed through its generic witness).
                var envelope: Envelope?
                var rejection: Rejection?
                if info.isOversized {
                    rejection = .lineTooLong(length: info.length)
                } else if let mapped = cutter?.decodeLine(bytes, decoder: &decoder) {
                    vendor = true
                    decodedHere = mapped.decoded
                    switch mapped.0 {
                    case .success(let e): envelope = e
                    case .failure(let r): rejection = r
                    }
                } else if let m = keyer.match(bytes) {
                    matchedShape = m.shape
                    envelope = m.envelope
                } else {
                    decodedHere = true
                    switch decoder.envelope(bytes) {
                    case .success(let e): envelope = e
                    case .failure(let r): rejection = r
                    }
                }
                // The first event of a new day, once the sink is half full, starts a segment:
                // in a log of several days, few users span the cut.
                if eventSink != nil, let env = envelope {
                    let day = Timestamp.wallClock(micros: env.time.micros, offsetSeconds: 0).days
                    if day > lastDay {
                        if lastDay != .min, !batch.lines.isEmpty, let sink = eventSink, sink.held >= sink.room,
                           let ended = sink.detach() {
                            try handOn(ended: ended)
                        }
                        lastDay = day
                    }
                }
                let lineStart = batch.bytes.count
                batch.bytes.append(contentsOf: bytes)
                var parsed = ParsedLine(number: info.number, offset: info.offset, start: lineStart, count: bytes.count)
                if let r = rejection {
                    parsed.rejected = Int32(batch.rejections.count)
                    batch.rejections.append(r)
                } else if var env = envelope {
                    // A vendor line's envelope is its native line's, kept as scratch after it;
                    // its shape leaves out the values the cutter found as written, and one the
                    // cutter did not write (mapped in full) is stored verbatim.
                    let decodedStart = batch.bytes.count
                    if vendor {
                        cutter?.appendLine(to: &batch.bytes)
                        parsed.vendorCuts = cutter?.appendCuts(lineStart: lineStart, to: &batch.cuts) ?? nil
                    }
                    let base = vendor ? decodedStart : lineStart
                    let scratchStart = batch.bytes.count
                    // Keys the line whose envelope's refs are into `b` (the line at `start`), and
                    // hands it to the sink as parsed: the sink builds what it keeps (once per
                    // distinct value), not an event per line.
                    func keyAndHand(_ env: Envelope, start: Int, in b: UnsafeBufferPointer<UInt8>) {
                        if let r = parsed.vendorCuts {
                            // Read in place: a slice of the batch's cuts would be retained and released.
                            parsed.keys = batch.cuts.withUnsafeBufferPointer { all in
                                keyer.keys(env, start: start, end: start + bytes.count, in: b, shape: matchedShape,
                                           cuts: UnsafeBufferPointer(rebasing: all[Int(r.lowerBound)..<Int(r.upperBound)]))
                            }
                        } else {
                            parsed.keys = keyer.keys(env, start: start, end: start + bytes.count, in: b,
                                                     shape: vendor ? VendorLine.verbatimShape : matchedShape)
                        }
                        eventSink?.take(line: info.number, user: parsed.keys.user, key: parsed.keys.key,
                                        shape: vendor ? -1 : parsed.keys.shape, envelope: env, in: b)
                    }
                    // A native line without decoded strings has every ref into its own bytes:
                    // keyed from them, not through the batch's array (reached through the
                    // closure's box, retained and released every line).
                    let inLine = !vendor && !(decodedHere && !decoder.scratch.isEmpty)
                    if inLine { keyAndHand(env, start: 0, in: bytes) }
                    if decodedHere, !decoder.scratch.isEmpty { batch.bytes.append(contentsOf: decoder.scratch) }
                    env.eventID = rebase(env.eventID, line: base, scratch: scratchStart)
                    env.name = rebase(env.name, line: base, scratch: scratchStart)
                    env.userID = rebase(env.userID, line: base, scratch: scratchStart)
                    env.flow = rebase(env.flow, line: base, scratch: scratchStart)
                    env.timeText = rebase(env.timeText, line: base, scratch: scratchStart)
                    env.step = env.step.map { rebase($0, line: base, scratch: scratchStart) }
                    env.properties = env.properties.map { ($0.lowerBound + base)..<($0.upperBound + base) }
                    env.context = env.context.map { ($0.lowerBound + base)..<($0.upperBound + base) }
                    parsed.envelope = env
                    if !inLine { batch.bytes.withUnsafeBufferPointer { keyAndHand(env, start: lineStart, in: $0) } }
                }
                batch.lines.append(parsed)
                if batch.lines.count >= batchLines || batch.bytes.count >= batchBytes {
                    try handOn(ended: nil)
                }
            }
        } catch let e as InputError {
            do { try settle() } catch is Stop { return ParseEnd(lines: reader.linesRead) }
            batch.bytesRead = stream.bytesRead
            if !batch.lines.isEmpty { _ = try sink(batch) }
            return ParseEnd(error: e, droppedTailBytes: reader.droppedTailBytes, lines: reader.linesRead)
        } catch is Stop {
            return ParseEnd(lines: reader.linesRead)
        }
        do { try settle() } catch is Stop { return ParseEnd(lines: reader.linesRead) }
        if !stopped, !batch.lines.isEmpty {
            batch.bytesRead = stream.bytesRead
            _ = try sink(batch)
        }
        return ParseEnd(lines: reader.linesRead)
    }
}
