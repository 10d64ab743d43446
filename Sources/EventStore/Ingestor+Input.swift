import FunnelModel
import EventLog
import GRDB
import Foundation

struct UnplannedKey: Hashable {
    var flow: String
    var step: String?
    var event: String
}

/// Interns byte strings into a table `(id INTEGER PRIMARY KEY, column UNIQUE)` during one
/// input's transaction: a local table first, SQLite on a local miss.
struct InternTable {
    private var local = ByteInterner()
    private var ids: [Int64] = []
    private let find: RawStatement
    private let insert: RawStatement
    private let blob: Bool
    private let table: String

    init(_ db: Database, table: String, column: String, blob: Bool) throws {
        find = try RawStatement(db, "SELECT id FROM \(table) WHERE \(column) = ?")
        insert = try RawStatement(db, "INSERT INTO \(table) (\(column)) VALUES (?)")
        self.blob = blob
        self.table = table
    }

    private func bind(_ s: RawStatement, _ b: UnsafeBufferPointer<UInt8>) {
        if blob { s.blob(1, b) } else { s.text(1, b) }
    }

    /// The id of `bytes`; `first` when this input had not asked for it before.
    mutating func id(_ bytes: UnsafeBufferPointer<UInt8>) throws -> (id: Int64, first: Bool) {
        guard let r = try id(bytes, create: true) else {
            throw StoreError(doing: "interning into \(table)", reason: "no id")
        }
        return (r.id, r.first)
    }

    /// The id of `bytes`, creating it only when `create`; nil when absent and not created.
    mutating func id(_ bytes: UnsafeBufferPointer<UInt8>, create: Bool) throws -> (id: Int64, first: Bool, created: Bool)? {
        let (i, isNew) = local.intern(bytes)
        if !isNew {
            let v = ids[i]
            return v == 0 ? nil : (v, false, false)
        }
        bind(find, bytes)
        var id: Int64 = 0
        var created = false
        if try find.step("looking up \(table)") {
            id = find.int64(0)
            find.reset()
        } else {
            find.reset()
            if create {
                bind(insert, bytes)
                try insert.step("adding to \(table)")
                insert.reset()
                id = insert.lastInsertedRowID
                created = true
            }
        }
        // 0: known absent for this input (not created); asked again, it stays absent.
        ids.append(id)
        return id == 0 ? nil : (id, true, created)
    }
}

/// Accepted lines on their way into `events`, written many rows to one INSERT: running a
/// statement once per row cost more than the row itself. Seqs are given here, in line
/// order, following the store's last one (the writer is the only one appending), and
/// handed over by `flush` once the rows are written.
struct PendingEvents {
    struct Row {
        var lineIndex: Int
        var line: Int
        var hash: Int64
        var user: Int64
        var flow: Int64
        var ts: Int64
        var offset: Int32
        /// The event name's atom, and the step's (0: the line names no step).
        var name: Int64
        var step: Int64
    }
    /// Rows per multi-row INSERT.
    static let rowsPerStatement = 32
    /// Parameters a row binds.
    static let columnsPerRow: Int32 = 11
    private var rows: [Row] = []
    private var bodies: [UInt8] = []
    private var ends: [Int] = []
    private let many: RawStatement
    private let one: RawStatement
    private let inputID: Int64
    private let label: String
    /// The seq of the next row written.
    private var nextSeq: Int64
    /// The seq of the first row this input writes.
    private let firstSeq: Int64

    init(_ db: Database, inputID: Int64, label: String) throws {
        // OR FAIL: a failing row stops the statement without a statement journal (the input's
        // transaction is rolled back by the error anyway).
        let columns = "INSERT OR FAIL INTO events (seq, id_hash, user, flow, ts_us, ts_offset, input_id, line_no, body, event, step) VALUES "
        let values = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        many = try RawStatement(db, columns + Array(repeating: values, count: PendingEvents.rowsPerStatement).joined(separator: ", "))
        one = try RawStatement(db, columns + values)
        nextSeq = (try Int64.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) FROM events") ?? 0) + 1
        firstSeq = nextSeq
        self.inputID = inputID
        self.label = label
        rows.reserveCapacity(PendingEvents.rowsPerStatement)
        bodies.reserveCapacity(PendingEvents.rowsPerStatement * 256)
    }

    var isFull: Bool { rows.count >= PendingEvents.rowsPerStatement }

    /// The seqs of the rows written so far (the store's last seq is `seqs.upperBound - 1`).
    var seqs: Range<Int64> { firstSeq..<nextSeq }

    /// Whether a row waiting to be written has the id hash `hash`.
    func holds(hash: Int64) -> Bool { rows.contains { $0.hash == hash } }

    mutating func add(_ row: Row, body: [UInt8]) {
        rows.append(row)
        bodies.append(contentsOf: body)
        ends.append(bodies.count)
    }

    /// Writes the rows held; `accepted` then gets each row with its seq, in order.
    mutating func flush(_ accepted: (Row, Int64) throws -> Void) throws {
        guard !rows.isEmpty else { return }
        // A full set in one statement; fewer (the end of a batch), one statement each.
        let perStatement = rows.count == PendingEvents.rowsPerStatement ? rows.count : 1
        let statement = perStatement > 1 ? many : one
        let batchSeq = nextSeq
        try bodies.withUnsafeBufferPointer { all in
            var first = 0
            while first < rows.count {
                for k in 0..<perStatement {
                    let i = first + k
                    let row = rows[i]
                    let base = Int32(k) * PendingEvents.columnsPerRow
                    statement.int(base + 1, batchSeq + Int64(i))
                    statement.int(base + 2, row.hash)
                    statement.int(base + 3, row.user)
                    statement.int(base + 4, row.flow)
                    statement.int(base + 5, row.ts)
                    statement.int(base + 6, Int64(row.offset))
                    statement.int(base + 7, inputID)
                    statement.int(base + 8, Int64(row.line))
                    // Bound in place: the bytes stay put until the statement has run.
                    statement.staticBlob(base + 9, UnsafeBufferPointer(rebasing: all[(i == 0 ? 0 : ends[i - 1])..<ends[i]]))
                    statement.int(base + 10, row.name)
                    if row.step == 0 { statement.null(base + 11) } else { statement.int(base + 11, row.step) }
                }
                try statement.step("appending \(label) line \(rows[first].line)")
                statement.reset()
                first += perStatement
            }
        }
        nextSeq += Int64(rows.count)
        for (i, row) in rows.enumerated() { try accepted(row, batchSeq + Int64(i)) }
        rows.removeAll(keepingCapacity: true)
        bodies.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }
}

extension Ingestor {
    enum InputOutcome {
        case skipped(IngestSummary.Skipped)
        case read(InputResult)
    }

    struct Counts {
        var lines = 0, accepted = 0, duplicates = 0, conflicts = 0, quarantined = 0, unplanned = 0
    }

    struct InputResult {
        var counts = Counts()
        var quarantinedBy: [Rejection.Code: Int] = [:]
        var unplanned: [UnplannedKey: Int] = [:]
        var failure: IngestSummary.Failure?
    }

    /// What we know about one interned (flow, step, event) key.
    struct KeyInfo {
        var flow: String
        var step: String?
        var rawName: String
        var normalized: String
        var planned: Bool
        var flowAtom: Int64 = 0
        var nameAtom: Int64 = 0
        var stepAtom: Int64 = 0
        var accepted = 0
        var firstTs = Int64.max
        var lastTs = Int64.min
    }

    /// Whether an event is part of the flows' plan: a v1 name, a defined flow, and (when it
    /// names one) a step of that flow. Without definitions, only the name is checked.
    static func isPlanned(name: String, flow: String, step: String?, flows: [String: Set<String>]) -> Bool {
        guard EventName(rawValue: name) != nil else { return false }
        if flows.isEmpty { return true }
        guard let steps = flows[flow] else { return false }
        if let step { return steps.contains(step) }
        return true
    }

    /// Starts parsing `path` on the parsing thread (behind any input parsed before it).
    func startParse(path: String) -> ParseRun {
        ParseRun(path: path, batchLines: options.batchLines, eventSink: observer?.makeEventSink())
    }

    /// Ingests one input in one transaction. `prefetched`: its parse, started ahead (else
    /// one starts here, unless the input is skipped); `readAhead` is called once the input's
    /// parse is under way and the input is not skipped, to queue the next input's parse.
    func ingestOne(path: String, label: String, content: ContentHash, index: Int, count: Int,
                   prefetched: ParseRun? = nil, readAhead: () -> Void = {},
                   progress: ((IngestProgress) -> Void)?) throws -> InputOutcome {
        let startedAt = options.now()
        let flowSteps = Dictionary(options.flows.map { ($0.id, Set($0.steps.map(\.id))) }, uniquingKeysWith: { a, _ in a })
        let observer = self.observer
        let parallel = options.parallel
        let batchLines = options.batchLines
        let logger = self.logger
        let now = options.now

        let cachePages = -options.cacheMiB * 1024
        let heldIDs = max(1, options.heldIDs)
        let filterBlocks = options.idFilterBytes / 64
        return try store.writer.writeWithoutTransaction { db -> InputOutcome in
            // The page cache: the writer mostly appends, so a small one serves.
            try db.execute(sql: "PRAGMA cache_size = \(cachePages)")
            // The writer reads through its page cache, not a map of the whole file: its
            // memory stays the same however large the store grows.
            try db.execute(sql: "PRAGMA mmap_size = 0")
            // No foreign key checks while the log is written: this writer interns every atom
            // and its input row before any line names them, and the checks cost three lookups
            // a row. They also made each multi-row INSERT a statement that "may abort", so
            // SQLite kept a statement journal for it: a page copied to a temp file every 32
            // rows (118 MB for one day's file). `OR FAIL` below removes the other cause; any
            // error still rolls the whole input back. (Set outside the transaction: SQLite
            // ignores it inside one.)
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
            var outcome: InputOutcome?
            try db.inTransaction(.immediate) {
                if let row = try Row.fetchOne(db, sql: "SELECT path, outcome FROM inputs WHERE sha256 = ?", arguments: [content.sha256]) {
                    outcome = .skipped(.init(path: label, sha256: content.sha256, previousPath: row[0],
                                             previousOutcome: LedgerEntry.Outcome(rawValue: row[1]) ?? .partial))
                    return .rollback
                }
                try db.execute(sql: """
                    INSERT INTO inputs (path, sha256, size, lines, accepted, duplicates, conflicts, quarantined,
                        unplanned, outcome, error, started_us, finished_us)
                    VALUES (?, ?, ?, 0, 0, 0, 0, 0, 0, 'partial', NULL, ?, ?)
                    """, arguments: [label, content.sha256, content.size, startedAt.micros, startedAt.micros])
                let inputID = db.lastInsertedRowID
                let arrived = startedAt.micros
                var rows = try PendingEvents(db, inputID: inputID, label: label)
                let findSeq = try RawStatement(db, "SELECT user, flow, body FROM events WHERE seq = ?")
                var findID = try EventIDs.Finder(db)
                // Every stored id hash in a filter (kept from the input before when no other
                // connection wrote since), and this input's new ones (written to the index at
                // its end, or as they pile up).
                let dataVersion = try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0
                let room = max(1 << 18, Int(content.size / 16))
                if dataVersion != idFilterVersion || (idFilter.map { !$0.hasRoom(for: room, maxBlocks: filterBlocks) } ?? true) {
                    idFilter = nil
                    idFilter = try IDFilter.load(more: room, maxBlocks: filterBlocks, in: db)
                }
                idFilterVersion = dataVersion
                var filter = idFilter ?? IDFilter(capacity: room, maxBlocks: filterBlocks)
                idFilter = nil
                var newIDs = NewIDs()
                var atoms = try InternTable(db, table: "atoms", column: "text", blob: false)
                var shapes = try InternTable(db, table: "shapes", column: "skeleton", blob: true)
                let atomWatermark = try Int64.fetchOne(db, sql: "SELECT coalesce(max(id), 0) FROM atoms") ?? 0
                var newShapeBudget = 4096
                var newUsers = Set<String>()
                var runs = RunCollector()
                var encoder = LineEncoder()
                let lineReader = try StoredLineReader(db)
                let run = parallel ? (prefetched ?? startParse(path: path)) : nil
                // Whatever ends this transaction, the parsing thread stops waiting for it.
                defer { run?.cancel() }
                readAhead()
                let eventSink: (any ParsedEventSink)? = if let run { run.eventSink } else { observer?.makeEventSink() }
                // Which lines got which seqs, for the observer.
                var accepted = AcceptedLines()
                let insertDuplicate = try RawStatement(db, "INSERT INTO duplicates (event_id, input_id, line_no, arrived_us) VALUES (?, ?, ?, ?)")
                let insertConflict = try RawStatement(db, "INSERT INTO conflicts (event_id, input_id, line_no, arrived_us, line) VALUES (?, ?, ?, ?, ?)")
                let insertQuarantine = try RawStatement(db, """
                    INSERT INTO quarantine (input_id, path, line_no, byte_offset, reason_code, reason, raw) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """)
                var result = InputResult()
                var keys: [KeyInfo] = []
                // The atom of each user and the id of each shape (nil: kept verbatim), by the
                // parser's numbers.
                var userAtoms: [Int64] = []
                var shapeIDs: [Int64?] = []
                var hashes: [Int64] = []
                var maybe: [Bool] = []
                var valid: [Bool] = []

                func handle(_ batch: LineBatch) throws {
                    try batch.bytes.withUnsafeBufferPointer { b in
                        /// Writes the rows held, then does what waited for their seqs.
                        func flushRows() throws {
                            try rows.flush { row, seq in
                                newIDs.append(EventIDs.Entry(hash: row.hash, seq: seq))
                                runs.add(user: row.user, flow: row.flow, seq: seq, ts: row.ts)
                                if eventSink != nil { accepted.append(line: row.line, seq: seq) }
                            }
                        }
                        // Each line's id hash, and whether the filter may hold it (this
                        // batch's earlier lines included: each is added as it is tested).
                        hashes.removeAll(keepingCapacity: true)
                        valid.removeAll(keepingCapacity: true)
                        for line in batch.lines {
                            hashes.append(line.envelope != nil ? line.keys.idHash : 0)
                            valid.append(line.envelope != nil)
                        }
                        filter.testAndInsert(hashes, valid: valid, into: &maybe)
                        for (lineIndex, line) in batch.lines.enumerated() {
                            let bytes = UnsafeBufferPointer(rebasing: b[line.start..<(line.start + line.count)])
                            result.counts.lines += 1
                            guard let env = line.envelope else {
                                let rejection = line.rejection ?? .notJSON(column: 1, detail: "unknown")
                                insertQuarantine.int(1, inputID)
                                insertQuarantine.text(2, label)
                                insertQuarantine.int(3, Int64(line.number))
                                insertQuarantine.int(4, line.offset)
                                insertQuarantine.text(5, rejection.code.rawValue)
                                insertQuarantine.text(6, rejection.text)
                                insertQuarantine.blob(7, bytes)
                                try insertQuarantine.step("quarantining \(label) line \(line.number)")
                                insertQuarantine.reset()
                                result.counts.quarantined += 1
                                result.quarantinedBy[rejection.code, default: 0] += 1
                                continue
                            }
                            func ref(_ r: StringRef) -> UnsafeBufferPointer<UInt8> {
                                UnsafeBufferPointer(rebasing: b[Int(r.start)..<Int(r.end)])
                            }
                            let lineEnd = line.start + line.count
                            let hash = hashes[lineIndex]
                            // The parser numbered the line's (flow, step, event) key, its user and
                            // its shape in first-seen order: a number met for the first time is
                            // the next one, looked up here once.
                            func outOfOrder(_ what: String, _ n: Int32) -> StoreError {
                                StoreError(doing: "appending \(label) line \(line.number)", reason: "\(what) number \(n) is out of order")
                            }
                            let id = Int(line.keys.key)
                            guard id >= 0 && id <= keys.count else { throw outOfOrder("key", line.keys.key) }
                            if id == keys.count {
                                // Classified and normalized once per key.
                                let raw = String(decoding: ref(env.name), as: UTF8.self)
                                let flow = String(decoding: ref(env.flow), as: UTF8.self)
                                let step = env.step.map { String(decoding: ref($0), as: UTF8.self) }
                                let normalized = EventName.normalized(raw)
                                keys.append(KeyInfo(flow: flow, step: step, rawName: raw, normalized: normalized,
                                                    planned: Ingestor.isPlanned(name: normalized, flow: flow, step: step, flows: flowSteps),
                                                    flowAtom: try atoms.id(ref(env.flow)).id, nameAtom: try atoms.id(ref(env.name)).id,
                                                    stepAtom: try env.step.map { try atoms.id(ref($0)).id } ?? 0))
                            }
                            let u = Int(line.keys.user)
                            guard u >= 0 && u <= userAtoms.count else { throw outOfOrder("user", line.keys.user) }
                            if u == userAtoms.count {
                                let user = try atoms.id(ref(env.userID))
                                userAtoms.append(user.id)
                                if user.first && user.id > atomWatermark && observer != nil {
                                    newUsers.insert(String(decoding: ref(env.userID), as: UTF8.self))
                                }
                            }
                            let userAtom = userAtoms[u]
                            let flowAtom = keys[id].flowAtom
                            var shapeID: Int64?
                            let shape = Int(line.keys.shape)
                            if shape >= 0 {
                                guard shape <= shapeIDs.count else { throw outOfOrder("shape", line.keys.shape) }
                                if shape == shapeIDs.count {
                                    encoder.shape(env, lineStart: line.start, lineEnd: lineEnd, in: b)
                                    shapeIDs.append(try encoder.skeleton.withUnsafeBufferPointer { sk in
                                        try shapes.id(sk, create: newShapeBudget > 0)
                                    }.map { r in
                                        if r.created { newShapeBudget -= 1 }
                                        return r.id
                                    })
                                } else {
                                    encoder.pickCuts(env, lineStart: line.start, lineEnd: lineEnd)
                                }
                                shapeID = shapeIDs[shape]
                            }
                            if let shapeID {
                                encoder.body(shapeID: shapeID, nameAtom: keys[id].nameAtom, stepAtom: keys[id].stepAtom, in: b)
                            } else {
                                encoder.verbatim(bytes)
                            }
                            // nil: a new event; true: a copy of a stored one; false: a stored
                            // event's id with another body. Only a hash the filter may have
                            // held is looked up (this input's new ids, then the stored ones).
                            var same: Bool?
                            if maybe[lineIndex] {
                                // The earlier lines of this input are looked up in the table
                                // (written first when one waiting to be is this id's).
                                if rows.holds(hash: hash) { try flushRows() }
                                let candidates = try findID.seqs(of: hash) + newIDs.seqs(of: hash)
                                for seq in candidates {
                                    findSeq.int(1, seq)
                                    guard try findSeq.step("looking up event \(String(decoding: ref(env.eventID), as: UTF8.self))") else {
                                        findSeq.reset()
                                        throw StoreError(doing: "appending \(label) line \(line.number)", reason: "event \(seq) is indexed but not stored")
                                    }
                                    let stored = try lineReader.line(user: findSeq.int64(0), flow: findSeq.int64(1),
                                                                     body: findSeq.bytes(2), seq: seq)
                                    findSeq.reset()
                                    same = stored.withUnsafeBufferPointer { sb -> Bool? in
                                        guard let storedID = StoredLine.eventID(of: sb), storedID.elementsEqual(ref(env.eventID)) else { return nil }
                                        if sb.count == bytes.count, let a = sb.baseAddress, let lb = bytes.baseAddress, memcmp(a, lb, bytes.count) == 0 {
                                            return true
                                        }
                                        let x = EventDecoder.jsonValue(sb)
                                        return x != nil && x == EventDecoder.jsonValue(bytes)
                                    }
                                    if same != nil { break }
                                }
                            }
                            if same == nil {
                                rows.add(PendingEvents.Row(lineIndex: lineIndex, line: line.number, hash: hash, user: userAtom,
                                                           flow: flowAtom, ts: env.time.micros, offset: env.time.offsetSeconds,
                                                           name: keys[id].nameAtom, step: keys[id].stepAtom),
                                         body: encoder.body)
                                if rows.isFull { try flushRows() }
                                result.counts.accepted += 1
                                keys[id].accepted += 1
                                keys[id].firstTs = min(keys[id].firstTs, env.time.micros)
                                keys[id].lastTs = max(keys[id].lastTs, env.time.micros)
                                if !keys[id].planned {
                                    result.counts.unplanned += 1
                                    result.unplanned[UnplannedKey(flow: keys[id].flow, step: keys[id].step, event: keys[id].normalized), default: 0] += 1
                                }
                                continue
                            }
                            if same == true {
                                insertDuplicate.text(1, ref(env.eventID))
                                insertDuplicate.int(2, inputID)
                                insertDuplicate.int(3, Int64(line.number))
                                insertDuplicate.int(4, arrived)
                                try insertDuplicate.step("recording a duplicate at \(label) line \(line.number)")
                                insertDuplicate.reset()
                                result.counts.duplicates += 1
                            } else {
                                insertConflict.text(1, ref(env.eventID))
                                insertConflict.int(2, inputID)
                                insertConflict.int(3, Int64(line.number))
                                insertConflict.int(4, arrived)
                                insertConflict.text(5, bytes)
                                try insertConflict.step("recording a conflict at \(label) line \(line.number)")
                                insertConflict.reset()
                                result.counts.conflicts += 1
                            }
                        }
                        try flushRows()
                    }
                    try observer?.betweenBatches(in: db)
                    if runs.held >= runs.limit { try runs.flush(db) }
                    // A long input's new ids go into the index as they pile up (a run each,
                    // merged as any), so memory does not grow with the input.
                    if newIDs.count >= heldIDs {
                        try EventIDs.add(&newIDs, in: db)
                        findID = try EventIDs.Finder(db)
                    }
                    progress?(IngestProgress(inputIndex: index, inputCount: count, path: label, bytesRead: batch.bytesRead,
                                             size: content.size, lines: result.counts.lines))
                }

                let end: ParseEnd
                if let run {
                    end = try run.forEach(idle: { try observer?.betweenBatches(in: db) }, handle)
                } else {
                    end = try LineParser.run(path: path, batchLines: batchLines, batchBytes: 4 << 20, eventSink: eventSink) {
                        try handle($0)
                        return true
                    }
                }
                var errorText: String?
                if let e = end.error {
                    var e2 = e
                    e2.path = label
                    var message = e2.description
                    if end.droppedTailBytes > 0 { message += "; an unfinished last line of \(end.droppedTailBytes) bytes was dropped" }
                    errorText = message
                    result.failure = .init(path: label, kind: e.kind, offset: e.offset, message: message, linesKept: result.counts.lines)
                    logger.debug("partial input", metadata: ["path": "\(label)", "error": "\(message)"])
                }
                let c = result.counts
                try db.execute(sql: """
                    UPDATE inputs SET lines = ?, accepted = ?, duplicates = ?, conflicts = ?, quarantined = ?, unplanned = ?,
                        outcome = ?, error = ?, finished_us = ? WHERE id = ?
                    """, arguments: [c.lines, c.accepted, c.duplicates, c.conflicts, c.quarantined, c.unplanned,
                                     errorText == nil ? "complete" : "partial", errorText, now().micros, inputID])
                var perFlow: [String: (Int, Int64, Int64)] = [:]
                for k in keys where k.accepted > 0 {
                    let cur = perFlow[k.flow] ?? (0, Int64.max, Int64.min)
                    perFlow[k.flow] = (cur.0 + k.accepted, min(cur.1, k.firstTs), max(cur.2, k.lastTs))
                }
                for (flow, v) in perFlow {
                    try db.execute(sql: """
                        INSERT INTO flow_summary (flow, events, first_ts_us, last_ts_us) VALUES (?, ?, ?, ?)
                        ON CONFLICT (flow) DO UPDATE SET events = events + excluded.events,
                            first_ts_us = min(first_ts_us, excluded.first_ts_us), last_ts_us = max(last_ts_us, excluded.last_ts_us)
                        """, arguments: [flow, v.0, v.1, v.2])
                }
                try EventIDs.add(&newIDs, in: db)
                // The last input of this ingest saves the filter for the next one.
                if index + 1 == count {
                    try filter.saveIfBehind(through: rows.seqs.upperBound - 1, in: db)
                }
                idFilter = filter
                try runs.flush(db)
                if let observer, let eventSink {
                    try observer.willCommit(CommittedInput(seqs: rows.seqs, accepted: accepted, newUsers: newUsers,
                                                           events: eventSink, more: index + 1 < count), in: db)
                }
                outcome = .read(result)
                return .commit
            }
            guard let outcome else { throw StoreError(doing: "ingesting \(label)", reason: "the transaction ended without an outcome") }
            if case .read = outcome { observer?.didCommit(store: store) }
            return outcome
        }
    }
}
