import LogFiles
import LineParsing

/// The ingest driver's decision about each line of one input, the same for every store: a
/// line without an event is quarantined; a line whose event id a stored event has is a
/// duplicate (the same event) or a conflict (another body); so is a line whose id an earlier
/// line of the input has; any other line is a new event. Lines are decided a chunk at a time
/// (the store's `InputWriting.lookupLines`): their ids are looked up in the store at once,
/// then the chunk goes to the writer with its verdicts. The classifier keeps the input's
/// tally (`result`) and its keys.
package struct LineClassifier {
    /// Each defined flow's step ids: what a key is checked against for `unplanned`.
    let flowSteps: [String: Set<String>]
    package private(set) var result = InputResult()
    /// The input's (flow, step, event) keys, by the parser's numbers.
    package private(set) var keys: [IngestKey] = []
    /// Batches added and not decided yet, with their lines' ids.
    private var pending = Chunk()
    /// The last chunk written, kept while the store's lookups may not see it yet.
    private var written = Chunk()

    /// A chunk's batches, the ids of its lines with an event (in line order), and its new
    /// events by id, each with its line's place (batch, line).
    private struct Chunk {
        var batches: [LineBatch] = []
        var ids = EventIDQuery()
        var lines = 0
        var bytes = 0
        var events = EventIDIndex<Place>()

        mutating func removeAll() {
            batches.removeAll(keepingCapacity: true)
            ids.removeAll()
            lines = 0
            bytes = 0
        }

        /// The bytes of the line at `place` in `batches`, to `body`.
        static func line<T>(at place: Place, in batches: UnsafeBufferPointer<LineBatch>, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
            // The line's bounds read in place, not the line copied out.
            let start = batches[place.batch].lines[place.line].start
            let end = start + batches[place.batch].lines[place.line].count
            return batches[place.batch].bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
        }

        /// Whether the line at `place` in `batches` has event id `id`.
        static func has(id: UnsafeBufferPointer<UInt8>, at place: Place, in batches: UnsafeBufferPointer<LineBatch>) -> Bool {
            guard let ref = batches[place.batch].lines[place.line].envelope?.eventID else { return false }
            return batches[place.batch].bytes.withUnsafeBufferPointer { ref.bytes(in: $0).elementsEqual(id) }
        }

        /// Whether `line` is the same event as this chunk's new event with id `id`; nil when
        /// the chunk has no new event with it.
        func sameEvent(id: UnsafeBufferPointer<UInt8>, hash: Int64, as line: UnsafeBufferPointer<UInt8>) -> Bool? {
            guard !events.isEmpty else { return nil }
            return batches.withUnsafeBufferPointer { batches in
                events.find(id, hash: hash) { Self.has(id: id, at: $0, in: batches) }
                    .map { first in Self.line(at: first, in: batches) { EventIdentity.sameEvent($0, line) } }
            }
        }
    }

    private struct Place {
        var batch: Int
        var line: Int
    }

    package init(flowSteps: [String: Set<String>]) {
        self.flowSteps = flowSteps
    }

    /// Takes a parsed batch: counts its lines and notes its keys and its lines' ids. The
    /// parser numbers keys in first-seen order, so a key met for the first time is the next.
    package mutating func add(_ batch: LineBatch, label: String) throws {
        // Lines read in place: a line is a few hundred bytes, not copied out for each.
        // The ids stay where they are, in the batch's buffer (held by the query, not copied).
        pending.ids.startBuffer(batch.bytes)
        try batch.bytes.withUnsafeBufferPointer { b in
            try batch.lines.withUnsafeBufferPointer { lines in
                for i in lines.indices {
                    result.counts.lines += 1
                    guard let env = lines[i].envelope else {
                        result.countQuarantined(lines[i].quarantineReason(in: batch.rejections))
                        continue
                    }
                    let key = Int(lines[i].keys.key)
                    guard key >= 0 && key <= keys.count else {
                        throw StoreError(doing: "reading \(label) line \(lines[i].number)", reason: "the parser's key \(key) is out of order")
                    }
                    if key == keys.count { keys.append(IngestKey(env, in: b, flowSteps: flowSteps)) }
                    pending.ids.append(Int(env.eventID.start)..<Int(env.eventID.end), hash: lines[i].keys.idHash)
                }
            }
        }
        pending.batches.append(batch)
        pending.lines += batch.lines.count
        pending.bytes += batch.bytes.count
    }

    /// Whether the lines added wait for a decision: the writer's chunk is full.
    package func isDue<Writer: InputWriting>(for writer: Writer) -> Bool {
        pending.lines >= writer.lookupLines || pending.bytes >= writer.lookupBytes
    }

    /// Decides the lines added since the last decision and hands them to `writer`: their ids
    /// are looked up among the stored events, then each line is checked in order against
    /// them, against the last chunk written (while the store may not see it), and against
    /// the chunk's earlier new events.
    package mutating func decide<Writer: InputWriting>(into writer: Writer) throws {
        guard !pending.batches.isEmpty else { return }
        let stored = pending.ids.isEmpty ? StoredCopies() : try writer.storedCopies(of: pending.ids)
        let ids = pending.ids, batches = pending.batches
        var verdicts: [LineVerdict] = []
        verdicts.reserveCapacity(pending.lines)
        var events = pending.events
        pending.events = EventIDIndex()
        events.removeAll(keepingRoomFor: ids.count)
        var next = 0
        // The batches read through one pointer: the lookups' closures capture it, not the array.
        batches.withUnsafeBufferPointer { batches in
            for (batchIndex, batch) in batches.enumerated() {
                batch.bytes.withUnsafeBufferPointer { b in batch.lines.withUnsafeBufferPointer { lines in
                    for lineIndex in lines.indices {
                        // The envelope's two values read in place, not the envelope copied out.
                        guard let micros = lines[lineIndex].envelope?.time.micros,
                              let idRef = lines[lineIndex].envelope?.eventID else {
                            verdicts.append(.quarantined)
                            continue
                        }
                        let start = lines[lineIndex].start, end = start + lines[lineIndex].count
                        let hash = ids.hashes[next]
                        next += 1
                        let id = idRef.bytes(in: b)
                        let bytes = UnsafeBufferPointer(rebasing: b[start..<end])
                        let same = stored.sameEvent(id: id, hash: hash, as: bytes)
                            ?? written.sameEvent(id: id, hash: hash, as: bytes)
                            ?? events.findOrAdd(id, hash: hash, line: Place(batch: batchIndex, line: lineIndex)) {
                                Chunk.has(id: id, at: $0, in: batches)
                            }.map { first in Chunk.line(at: first, in: batches) { EventIdentity.sameEvent($0, bytes) } }
                        switch same {
                        case nil:
                            verdicts.append(.event)
                            result.countAccepted(at: micros, key: &keys[Int(lines[lineIndex].keys.key)])
                        case true?:
                            verdicts.append(.duplicate)
                            result.counts.duplicates += 1
                        case false?:
                            verdicts.append(.conflict)
                            result.counts.conflicts += 1
                        }
                    }
                } }
            }
        }
        pending.events = events
        try writer.write(DecidedChunk(batches: pending.batches, verdicts: verdicts, keys: keys))
        if writer.lookupSeesWrites {
            pending.removeAll()
        } else {
            swap(&pending, &written)
            pending.removeAll()
        }
    }

    /// Each flow's events accepted since the last call, and their time span; the keys'
    /// totals start again.
    package mutating func takeFlowTotals() -> [String: FlowTotal] {
        let totals = InputResult.flowTotals(keys)
        for i in keys.indices {
            keys[i].accepted = 0
            keys[i].firstTs = .max
            keys[i].lastTs = .min
        }
        return totals
    }

    /// Records how the input's parse ended, after `skipped` lines an earlier ingest
    /// committed (`InputResult.end`); returns the ledger's error text (nil: read to its end).
    package mutating func end(_ end: ParseEnd, label: String, skipped: Int) -> String? {
        if skipped > 0 { result.resumed = IngestSummary.Resumed(path: label, afterLine: skipped) }
        let text = result.end(end, label: label)
        result.failure?.linesKept += skipped
        return text
    }
}
