import FunnelModel
import LogFiles
import LineParsing
import StoreCore
import GRDB
import Logging
import Foundation

/// Writes one input's decided chunks inside the input's transaction: each line quarantined,
/// recorded as a duplicate or conflict of a stored event, or appended to the log with its id,
/// its user's run and its flow's summary, as the ingest driver decided it (`LineClassifier`),
/// which it looks ids up for (`storedCopies`); `finish` writes the ledger row and what waited
/// for the input's end.
struct InputWriter {
    let db: Database
    let label: String
    let inputID: Int64
    /// When the ingest that reads the input started (the arrival time of its copies).
    let arrived: Int64
    /// New ids held before they go into the index.
    let heldIDs: Int
    /// Whether an observer is told which users are new and which lines got which seqs.
    let observed: Bool
    /// The store's largest atom id before this input: a user atom above it is a new user.
    let atomWatermark: Int64
    /// What an earlier ingest committed of this input (zero for a new one): the ledger row
    /// counts it and `result`.
    let base: InputCounts

    private(set) var rows: PendingEvents
    private var findID: EventIDs.Finder
    /// Every stored id hash (kept from input to input by the ingestor).
    private(set) var filter: IDFilter
    /// What waits for the written rows' seqs.
    private var written: Written
    private var atoms: InternTable
    private var shapes: InternTable
    /// Shapes this input may still add: past it, lines are kept verbatim.
    private var newShapeBudget = Tuning.newShapesPerInput
    private(set) var newUsers = Set<String>()
    private var encoder = LineEncoder()
    private let lineReader: StoredLineReader
    /// Which lines got which seqs, for the observer.
    var accepted: AcceptedLines { written.lines }
    private let insertDuplicate: RawStatement
    private let insertConflict: RawStatement
    private let insertQuarantine: RawStatement
    /// The atoms of each key's flow, event name and step (0: none), by the key's index.
    private var keyAtoms: [(flow: Int64, name: Int64, step: Int64)] = []
    // The atom of each user, by the parser's numbers.
    private var userAtoms: [Int64] = []
    // Whether the filter may hold each id of a lookup.
    private var maybe: [Bool] = []

    init(_ db: Database, label: String, inputID: Int64, arrived: Int64, filter: IDFilter,
         heldIDs: Int, observed: Bool, buffers: Written? = nil, resume: Ingestor.Resume? = nil) throws {
        self.db = db
        base = resume?.counts ?? InputCounts()
        if let resume { newShapeBudget = resume.shapeBudget }
        self.label = label
        self.inputID = inputID
        self.arrived = arrived
        self.heldIDs = heldIDs
        self.observed = observed
        rows = try PendingEvents(db, inputID: inputID, label: label)
        findID = try EventIDs.Finder(db)
        self.filter = filter
        written = buffers ?? Written()
        atoms = try InternTable(db, table: "atoms", column: "text", blob: false)
        shapes = try InternTable(db, table: "shapes", column: "skeleton", blob: true)
        atomWatermark = try Int64.fetchOne(db, sql: "SELECT coalesce(max(id), 0) FROM atoms") ?? 0
        lineReader = try StoredLineReader(db)
        insertDuplicate = try RawStatement(db, "INSERT INTO duplicates (event_id, input_id, line_no, arrived_us) VALUES (?, ?, ?, ?)")
        insertConflict = try RawStatement(db, "INSERT INTO conflicts (event_id, input_id, line_no, arrived_us, line) VALUES (?, ?, ?, ?, ?)")
        insertQuarantine = try RawStatement(db, """
            INSERT INTO quarantine (input_id, path, line_no, byte_offset, reason_code, reason, raw) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
    }

    /// The stored events with any of `ids` (this input's written lines included). Only an id
    /// the filter may hold is looked up; the filter then holds them all.
    mutating func storedCopies(of ids: EventIDQuery) throws -> StoredCopies {
        filter.testAndInsert(ids.hashes, into: &maybe)
        var copies = StoredCopies()
        var i = 0
        try ids.forEach { id, hash in
            defer { i += 1 }
            guard maybe[i], let line = try storedLine(id: id, hash: hash) else { return }
            line.withUnsafeBufferPointer { copies.add(id: id, line: $0) }
        }
        return copies
    }

    /// Writes every line of `chunk` as decided, then the rows still held.
    mutating func write(_ chunk: DecidedChunk) throws {
        try chunk.forEachLine { line, b, verdict, batch in try write(line, verdict, in: b, of: batch) }
        try flushRows()
    }

    /// After a batch: writes the runs and new ids held once there are many, so that memory
    /// does not grow with the input (ids go into the index as a run each, merged as any).
    mutating func afterBatch() throws {
        if written.runs.held >= written.runs.limit { try written.runs.flush(db) }
        if written.ids.count >= heldIDs {
            try EventIDs.add(&written.ids, in: db)
            findID = try EventIDs.Finder(db)
        }
    }

    private mutating func write(_ line: ParsedLine, _ verdict: LineVerdict, in b: UnsafeBufferPointer<UInt8>,
                                of batch: LineBatch) throws {
        let bytes = UnsafeBufferPointer(rebasing: b[line.start..<(line.start + line.count)])
        guard let env = line.envelope else {
            try quarantine(line, bytes, rejection: line.quarantineReason(in: batch.rejections))
            return
        }
        let atom = try keyAtoms(of: line, env, in: b)
        let userAtom = try user(of: line, env, in: b)
        let shapeID = try cut(line, env, in: b, vendorCuts: line.cuts(in: batch.cuts))
        switch verdict {
        case .event:
            let row = PendingEvents.Row(line: line.number, hash: line.keys.idHash, user: userAtom,
                                        userNumber: line.keys.user, flow: atom.flow, ts: env.time.micros, offset: env.time.offsetSeconds,
                                        name: atom.name, step: atom.step)
            let encoder = self.encoder
            let formsTime = encoder.formsTime(shape: Int(line.keys.shape))
            rows.add(row) { body in
                if let shapeID {
                    encoder.appendBody(shapeID: shapeID, nameAtom: atom.name, stepAtom: atom.step, formsTime: formsTime,
                                       in: b, to: &body)
                } else {
                    LineEncoder.appendVerbatim(bytes, to: &body)
                }
            }
            if rows.isFull { try flushRows() }
        case .duplicate:
            insertDuplicate.text(1, env.eventID.bytes(in: b))
            insertDuplicate.int(2, inputID)
            insertDuplicate.int(3, Int64(line.number))
            insertDuplicate.int(4, arrived)
            try insertDuplicate.step("recording a duplicate at \(label) line \(line.number)")
            insertDuplicate.reset()
        case .conflict:
            insertConflict.text(1, env.eventID.bytes(in: b))
            insertConflict.int(2, inputID)
            insertConflict.int(3, Int64(line.number))
            insertConflict.int(4, arrived)
            insertConflict.text(5, bytes)
            try insertConflict.step("recording a conflict at \(label) line \(line.number)")
            insertConflict.reset()
        case .quarantined:
            throw StoreError(doing: "appending \(label) line \(line.number)", reason: "a line with an event is decided quarantined")
        }
    }

    private func outOfOrder(_ what: String, _ n: Int32, line: ParsedLine) -> StoreError {
        StoreError(doing: "appending \(label) line \(line.number)", reason: "\(what) number \(n) is out of order")
    }

    private mutating func quarantine(_ line: ParsedLine, _ bytes: UnsafeBufferPointer<UInt8>, rejection: Rejection) throws {
        insertQuarantine.int(1, inputID)
        insertQuarantine.text(2, label)
        insertQuarantine.int(3, Int64(line.number))
        insertQuarantine.int(4, line.offset)
        insertQuarantine.text(5, rejection.code.rawValue)
        insertQuarantine.text(6, rejection.text)
        insertQuarantine.blob(7, bytes)
        try insertQuarantine.step("quarantining \(label) line \(line.number)")
        insertQuarantine.reset()
    }

    /// The atoms of the line's (flow, step, event) key, by the parser's numbers: a key met
    /// for the first time is the next, interned here once.
    /// Inlined, the first time's interning apart: every line asks.
    @inline(__always)
    private mutating func keyAtoms(of line: ParsedLine, _ env: Envelope, in b: UnsafeBufferPointer<UInt8>) throws -> (flow: Int64, name: Int64, step: Int64) {
        let id = Int(line.keys.key)
        guard id >= 0 && id <= keyAtoms.count else { throw outOfOrder("key", line.keys.key, line: line) }
        if id == keyAtoms.count { try learnKey(env, in: b) }
        return keyAtoms[id]
    }

    /// Interns the atoms of a key met for the first time (`keyAtoms`).
    private mutating func learnKey(_ env: Envelope, in b: UnsafeBufferPointer<UInt8>) throws {
        keyAtoms.append((flow: try atoms.id(env.flow.bytes(in: b)).id, name: try atoms.id(env.name.bytes(in: b)).id,
                         step: try env.step.map { try atoms.id($0.bytes(in: b)).id } ?? 0))
    }

    /// The atom of the line's user (numbered by the parser as keys are). Inlined, the first
    /// time's interning apart: every line asks.
    @inline(__always)
    private mutating func user(of line: ParsedLine, _ env: Envelope, in b: UnsafeBufferPointer<UInt8>) throws -> Int64 {
        let u = Int(line.keys.user)
        guard u >= 0 && u <= userAtoms.count else { throw outOfOrder("user", line.keys.user, line: line) }
        if u == userAtoms.count { try learnUser(env, in: b) }
        return userAtoms[u]
    }

    /// Interns a user met for the first time (`user(of:)`), noting a new one for the observer.
    private mutating func learnUser(_ env: Envelope, in b: UnsafeBufferPointer<UInt8>) throws {
        let user = try atoms.id(env.userID.bytes(in: b))
        userAtoms.append(user.id)
        if user.first && user.id > atomWatermark && observed {
            newUsers.insert(String(decoding: env.userID.bytes(in: b), as: UTF8.self))
        }
    }

    /// Picks the line's cuts for its stored body (`encoder`), learning its shape the first
    /// time; returns the shape's id, or nil when the line is kept verbatim (no shape, or none
    /// left in this input's budget). A vendor line is cut where its parser said
    /// (`vendorCuts`), any other where its envelope's values are.
    private mutating func cut(_ line: ParsedLine, _ env: Envelope, in b: UnsafeBufferPointer<UInt8>,
                              vendorCuts: ArraySlice<LineShape.Cut>?) throws -> Int64? {
        switch encoder.cutter.cut(line, env, in: b, vendorCuts: vendorCuts) {
        case .known(let id): return id
        case .none(let outOfOrder):
            if outOfOrder { throw self.outOfOrder("shape", line.keys.shape, line: line) }
            return nil
        case .new(let skeleton):
            let native = vendorCuts == nil
            let stored = LineEncoder.storedSkeleton(skeleton, native: native)
            let found = try stored.withUnsafeBufferPointer { try shapes.id($0, create: newShapeBudget > 0) }
            if found?.created == true { newShapeBudget -= 1 }
            encoder.learn(found?.id, native: native)
            return found?.id
        }
    }

    /// The stored line with event id `id` (`hash` its index key), nil when none has it. The
    /// input's own ids first: a copy re-sent within an input is found without a store lookup.
    private mutating func storedLine(id eventID: UnsafeBufferPointer<UInt8>, hash: Int64) throws -> [UInt8]? {
        for seq in written.ids.seqs(of: hash) {
            if let stored = try storedLine(seq: seq, ifID: eventID) { return stored }
        }
        for seq in try findID.seqs(of: hash) {
            if let stored = try storedLine(seq: seq, ifID: eventID) { return stored }
        }
        return nil
    }

    /// The stored line of event `seq` when its event id is `eventID`.
    private func storedLine(seq: Int64, ifID eventID: UnsafeBufferPointer<UInt8>) throws -> [UInt8]? {
        let found = try lineReader.rows.row(seq: seq, doing: "looking up event \(String(decoding: eventID, as: UTF8.self))") { row in
            try lineReader.line(user: row.user, flow: row.flow, time: row.time, body: row.body, seq: seq)
        }
        guard let stored = found else {
            throw StoreError(doing: "appending \(label)", reason: "event \(seq) is indexed but not stored")
        }
        let native = try lineReader.eventLine(stored, seq: seq)
        let same = native.withUnsafeBufferPointer { sb in StoredLine.eventID(of: sb)?.elementsEqual(eventID) ?? false }
        return same ? stored : nil
    }

    /// What waits for written rows' seqs: their ids, their users' runs, and (observed) which
    /// lines they were.
    struct Written {
        var ids = NewIDs()
        var runs = RunCollector()
        var lines = AcceptedLines()
    }

    /// Writes the rows held, then records what waited for their seqs.
    private mutating func flushRows() throws {
        let observed = self.observed
        try rows.flush(into: &written) { written, row, seq in
            written.ids.append(EventIDs.Entry(hash: row.hash, seq: seq))
            written.runs.add(user: row.user, flow: row.flow, seq: seq, ts: row.ts, userNumber: row.userNumber)
            if observed { written.lines.append(line: row.line, seq: seq) }
        }
    }

    /// What one committed segment of the input added, for the observer.
    struct Segment {
        var seqs: Range<Int64>
        var accepted: AcceptedLines
        var newUsers: Set<String>
    }

    /// Ends the input's current segment, before its transaction commits: writes what waited
    /// for the end (ids, runs, flows' summary) and a ledger row that says after which line
    /// the next ingest goes on, should this one stop before the input's end. Returns what the
    /// segment added; the next segment starts empty.
    mutating func endSegment(_ totals: SegmentTotals, finishedAt: Timestamp) throws -> Segment {
        try flushRows()
        try writeHeld(flows: totals.flows)
        let counts = base + totals.counts
        try writeLedger(counts, outcome: "partial",
                        error: "unfinished: the next ingest of this content goes on after line \(counts.lines)",
                        resume: (counts.lines, newShapeBudget), finishedAt: finishedAt)
        findID = try EventIDs.Finder(db)
        let segment = Segment(seqs: rows.seqs, accepted: written.lines, newUsers: newUsers)
        rows.startSegment()
        written.lines = AcceptedLines()
        newUsers = []
        return segment
    }

    /// The filter, moved out for the next input once this one is written: held once, it is
    /// filled in place, never copied.
    mutating func handOnFilter() -> IDFilter {
        var taken = IDFilter.handedOn
        swap(&taken, &filter)
        return taken
    }

    /// The buffers of the new ids and of the runs, emptied and moved out for the next input
    /// once this one wrote them (nil when some are still held): their memory is used again,
    /// not allocated and faulted in anew. Which lines were accepted stays with the observer.
    mutating func handOnBuffers() -> Written? {
        guard written.ids.count == 0, written.runs.held == 0 else { return nil }
        var taken = Written(ids: NewIDs(bucketBits: 0))
        swap(&taken, &written)
        taken.lines = AcceptedLines()
        taken.runs.startInput()
        return taken
    }

    /// Writes the input's ledger row (complete, or partial with why), its flows' summary and
    /// the ids and runs still held. The last input of an ingest saves the id filter for the
    /// next one.
    mutating func finish(_ read: InputRead, isLast: Bool, finishedAt: Timestamp, logger: Logger) throws {
        if let error = read.error { logger.debug("partial input", metadata: ["path": "\(label)", "error": "\(error)"]) }
        try writeLedger(base + read.result.counts, outcome: read.error == nil ? "complete" : "partial", error: read.error,
                        resume: nil, finishedAt: finishedAt)
        try writeHeld(flows: read.flows)
        if isLast {
            try filter.saveIfBehind(through: rows.seqs.upperBound - 1, in: db)
        }
    }

    /// The input's ledger row: its counts (with what earlier ingests committed of it), and
    /// where a next ingest would go on (nil: nowhere, the input is done).
    private func writeLedger(_ c: InputCounts, outcome: String, error: String?, resume: (line: Int, shapes: Int)?,
                             finishedAt: Timestamp) throws {
        try db.execute(sql: """
            UPDATE inputs SET lines = ?, accepted = ?, duplicates = ?, conflicts = ?, quarantined = ?, unplanned = ?,
                outcome = ?, error = ?, finished_us = ?, resume_line = ?, resume_shapes = ? WHERE id = ?
            """, arguments: [c.lines, c.accepted, c.duplicates, c.conflicts, c.quarantined, c.unplanned,
                             outcome, error, finishedAt.micros, resume?.line, resume?.shapes, inputID])
    }

    /// Writes what waits for the end of a segment or of the input: the flows' summary of the
    /// events accepted since, the new ids and the runs held.
    private mutating func writeHeld(flows: [String: FlowTotal]) throws {
        for (flow, t) in flows {
            try db.execute(sql: """
                INSERT INTO flow_summary (flow, events, first_ts_us, last_ts_us) VALUES (?, ?, ?, ?)
                ON CONFLICT (flow) DO UPDATE SET events = events + excluded.events,
                    first_ts_us = min(first_ts_us, excluded.first_ts_us), last_ts_us = max(last_ts_us, excluded.last_ts_us)
                """, arguments: [flow, t.events, t.firstTs, t.lastTs])
        }
        try EventIDs.add(&written.ids, in: db)
        try written.runs.flush(db)
    }
}
