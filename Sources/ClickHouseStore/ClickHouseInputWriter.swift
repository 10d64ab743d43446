import Foundation
import FunnelModel
import LogFiles
import StoreCore
import LineParsing

/// Writes one input's decided chunks under its attempt (`LineClassifier` decides each line:
/// quarantined, a duplicate or conflict of a stored event, or a new event with the next seq).
/// A chunk's ids are looked up among the visible events at once (`storedCopies`), then its
/// events go in one insert a shard, still under way while the next chunk is looked up.
/// `commit` writes the input's flows and, last, its ledger row.
struct ClickHouseInputWriter {
    let store: ClickHouseStore
    let label: String
    /// The source the input is read through (recorded with it in the ledger); nil: native.
    var source: InputSourceRecord?
    let inputID: UInt32
    let attempt: UInt64
    /// The committed attempts and this one: the rows a lookup sees.
    let visible: String
    /// When the ingest that reads the input started (the arrival time of its copies).
    let arrived: Int64
    /// The seq of the input's first accepted event, and of the next.
    private let firstSeq: UInt64
    private var nextSeq: UInt64
    /// The accepted lines with their seqs.
    private(set) var accepted = AcceptedLines()
    private var users: [String] = []
    /// Each user's shard (`ClickHouseStore.shards`), for the users located so far.
    private var shardOf: [Int] = []
    /// The last chunk's inserts (one a shard), still under way while the next chunk is
    /// looked up.
    private var pending: [ClickHouseClient.PendingInsert] = []
    /// The chunk's rows for each shard, kept between chunks (their room is reused).
    private var shardRows: [RowBinaryWriter] = []
    /// The store's line shapes, with those this input learns (saved before its commit).
    private(set) var shapes: ClickHouseShapes
    /// Cuts each line for its row (`ClickHouseShapes`).
    private var cutter = ShapeCutter()
    /// Shapes this input may still add: past it, lines are kept whole.
    private var newShapeBudget: Int
    private var duplicates = RowBinaryWriter()
    private var conflicts = RowBinaryWriter()
    private var quarantined = RowBinaryWriter()

    init(store: ClickHouseStore, label: String, inputID: UInt32, attempt: UInt64, committed: [UInt64],
         firstSeq: UInt64, arrived: Int64, shapes: ClickHouseShapes, newShapes: Int) {
        self.store = store
        self.shapes = shapes
        newShapeBudget = newShapes
        self.label = label
        self.inputID = inputID
        self.attempt = attempt
        visible = ClickHouseSQL.list(committed + [attempt])
        self.firstSeq = firstSeq
        nextSeq = firstSeq
        self.arrived = arrived
    }

    /// The seqs of the input's accepted events so far.
    var seqs: Range<Int64> { Int64(firstSeq)..<Int64(nextSeq) }

    static let eventColumns = ["seq", "attempt", "input_id", "line_no", "event_id", "user_id", "flow", "step", "event", "ts_us",
                               "line", "shape", "cut_values", "line_length"]

    /// Records a decided chunk: its quarantined lines, duplicates and conflicts as side rows,
    /// its events as each shard's rows, whose inserts start (once the last chunk's ended).
    mutating func write(_ chunk: DecidedChunk) throws {
        var firstLine: Int?, lastLine = 0
        try chunk.forEachLine { line, b, _ in
            guard let env = line.envelope else { return }
            firstLine = firstLine ?? line.number
            lastLine = line.number
            // The parser numbers users in first-seen order: a new one is the next.
            let user = Int(line.keys.user)
            guard user >= 0 && user <= users.count else {
                throw ClickHouseError(server: nil, doing: "reading \(label) line \(line.number)",
                                      reason: "the parser's user \(user) is out of order")
            }
            if user == users.count { users.append(env.userID.string(in: b)) }
        }
        try locateUsers()
        try waitForInserts()
        if shardRows.isEmpty { shardRows = store.servers.map { _ in RowBinaryWriter() } }
        try chunk.forEachLine { line, b, verdict, batch in
            let lineBytes = UnsafeBufferPointer(rebasing: b[line.start..<(line.start + line.count)])
            guard let env = line.envelope else {
                quarantine(line, lineBytes, rejection: line.quarantineReason(in: batch.rejections))
                return
            }
            let id = env.eventID.bytes(in: b)
            // Every line with an envelope is cut: the parser numbers shapes over all of them.
            let shape = try self.shape(of: line, env, in: b, vendorCuts: line.cuts(in: batch.cuts))
            switch verdict {
            case .event:
                accepted.append(line: line.number, seq: Int64(nextSeq))
                let key = chunk.keys[Int(line.keys.key)]
                let user = users[Int(line.keys.user)]
                let s = shardOf[Int(line.keys.user)]
                let kept = shape != nil && Self.cutsHold(cutter.cuts, env, in: b)
                shardRows[s].uint64(nextSeq)
                shardRows[s].uint64(attempt)
                shardRows[s].uint32(inputID)
                shardRows[s].uint32(UInt32(line.number))
                shardRows[s].string(bytes: id)
                shardRows[s].string(user)
                shardRows[s].string(key.flow)
                shardRows[s].nullableString(key.step)
                shardRows[s].string(key.rawName)
                shardRows[s].int64(env.time.micros)
                if kept, let shape {
                    shardRows[s].string(bytes: [UInt8]())
                    shardRows[s].uint64(shape)
                    Self.appendCutValues(of: cutter.cuts, to: &shardRows[s], in: b)
                } else {
                    shardRows[s].string(bytes: lineBytes)
                    shardRows[s].uint64(0)
                    shardRows[s].arrayCount(0)
                }
                shardRows[s].uint32(UInt32(line.count))
                nextSeq += 1
            case .duplicate:
                duplicates.string(bytes: id)
                duplicates.uint64(attempt)
                duplicates.uint32(inputID)
                duplicates.uint32(UInt32(line.number))
                duplicates.int64(arrived)
            case .conflict:
                conflicts.string(bytes: id)
                conflicts.uint64(attempt)
                conflicts.uint32(inputID)
                conflicts.uint32(UInt32(line.number))
                conflicts.int64(arrived)
                conflicts.string(bytes: lineBytes)
            case .quarantined:
                quarantine(line, lineBytes, rejection: line.quarantineReason(in: batch.rejections))
            }
        }
        // Each shard's rows go straight to its own table, all shards at once.
        for shard in shardRows.indices where !shardRows[shard].isEmpty {
            let server = store.servers[shard]
            let lines = firstLine.map { "\($0)–\(lastLine)" } ?? "\(lastLine)"
            pending.append(try server.startInsert(into: store.layout.shardEvents, columns: Self.eventColumns, rows: shardRows[shard],
                                                  doing: "writing the events of \(label) lines \(lines) to \(server.server)"))
            shardRows[shard].removeAll()
        }
        if duplicates.bytes.count + conflicts.bytes.count + quarantined.bytes.count >= Tuning.sideRowBytes { try writeSideRows() }
    }

    /// The id of the line's shape, its cuts picked (`cutter`); nil: the line is kept whole.
    private mutating func shape(of line: ParsedLine, _ env: Envelope, in b: UnsafeBufferPointer<UInt8>,
                                vendorCuts: ArraySlice<LineShape.Cut>?) throws -> UInt64? {
        switch cutter.cut(line, env, in: b, vendorCuts: vendorCuts) {
        case .known(let id): return id.map { UInt64(bitPattern: $0) }
        case .none(let outOfOrder):
            guard !outOfOrder else {
                throw ClickHouseError(server: nil, doing: "reading \(label) line \(line.number)",
                                      reason: "the parser's shape \(line.keys.shape) is out of order")
            }
            return nil
        case .new(let skeleton):
            let found = skeleton.withUnsafeBufferPointer { shapes.id($0, create: newShapeBudget > 0) }
            if found?.created == true { newShapeBudget -= 1 }
            cutter.learn(found.map { Int64(bitPattern: $0.id) })
            return found?.id
        }
    }

    /// Whether each cut the row's own columns fill holds their bytes: the envelope's event id,
    /// name, user, flow and step, which the columns hold (the parser interns keys and users by
    /// them). A native line is cut at those very bytes; a vendor line's cut that holds others
    /// keeps the line whole.
    private static func cutsHold(_ cuts: [LineShape.Cut], _ env: Envelope, in b: UnsafeBufferPointer<UInt8>) -> Bool {
        for c in cuts {
            let ref: StringRef?
            switch c.field {
            case .eventID: ref = env.eventID
            case .name: ref = env.name
            case .user: ref = env.userID
            case .flow: ref = env.flow
            case .step: ref = env.step
            case .ts, .properties, .formedTS, .formedID: continue
            }
            guard let ref else { return false }
            if Int(ref.start) == c.start && Int(ref.end) == c.end { continue }
            if !ref.bytes(in: b).elementsEqual(UnsafeBufferPointer(rebasing: b[c.start..<c.end])) { return false }
        }
        return true
    }

    /// Appends a row's `cut_values`: the time and properties values among `cuts`, in line order.
    private static func appendCutValues(of cuts: [LineShape.Cut], to rows: inout RowBinaryWriter, in b: UnsafeBufferPointer<UInt8>) {
        let values = cuts.lazy.filter { $0.field == .ts || $0.field == .properties }
        rows.arrayCount(values.count)
        for c in values { rows.string(bytes: UnsafeBufferPointer(rebasing: b[c.start..<c.end])) }
    }

    private mutating func quarantine(_ line: ParsedLine, _ lineBytes: UnsafeBufferPointer<UInt8>, rejection: Rejection) {
        quarantined.uint64(attempt)
        quarantined.uint32(inputID)
        quarantined.string(label)
        quarantined.uint32(UInt32(line.number))
        quarantined.int64(line.offset)
        quarantined.string(rejection.code.rawValue)
        quarantined.string(rejection.text)
        quarantined.string(bytes: lineBytes)
    }

    /// Waits for the last chunk's inserts; the first failure is thrown once all have ended.
    private mutating func waitForInserts() throws {
        var failure: (any Error)?
        for insert in pending {
            do { try insert.wait() } catch { if failure == nil { failure = error } }
        }
        pending = []
        if let failure { throw failure }
    }

    /// Finds the shard of the chunk's users not located yet.
    private mutating func locateUsers() throws {
        guard shardOf.count < users.count else { return }
        let new = Array(users[shardOf.count...])
        shardOf += try store.shards(of: new, doing: "placing \(new.count) users of \(label) on their shards")
    }

    /// The visible events with any of `ids` (the first arrival, should two have one), with
    /// their lines. The ids go as an external table: the server reads them as data, much
    /// faster than an IN list of as many literals parsed as SQL. Their hashes pick the
    /// candidate rows first (PREWHERE reads only that column), the ids themselves decide.
    func storedCopies(of ids: EventIDQuery) throws -> StoredCopies {
        let doing = "looking up \(ids.count) event ids of \(label) among the stored events"
        var rows: [UInt8] = []
        rows.reserveCapacity(ids.byteCount + ids.count * 4)
        ids.forEach { id, _ in
            ClickHouseSQL.appendTSV(id, to: &rows)
            rows.append(0x0A)
        }
        let data = try store.coordinator.read("""
            SELECT seq, event_id, \(ClickHouseShapes.lineColumns) FROM events PREWHERE id_hash IN (SELECT cityHash64(event_id) FROM ids)
            WHERE event_id IN ids AND attempt IN \(visible)
            ORDER BY seq FORMAT RowBinary
            """, doing: doing, external: ClickHouseClient.ExternalTable(name: "ids", structure: "event_id String", rows: Data(rows)))
        var reader = RowBinaryReader(data, doing: doing)
        var out = StoredCopies()
        while !reader.isAtEnd {
            let seq = Int64(bitPattern: try reader.uint64())
            let id = try reader.bytesOfString(), line = try shapes.line(from: &reader, seq: seq)
            id.withUnsafeBufferPointer { i in line.withUnsafeBufferPointer { out.add(id: i, line: $0) } }
        }
        return out
    }

    /// Inserts the duplicates, conflicts and quarantined lines held, on the coordinator.
    private mutating func writeSideRows() throws {
        let tables: [(String, [String], RowBinaryWriter)] = [
            ("duplicates", ["event_id", "attempt", "input_id", "line_no", "arrived_us"], duplicates),
            ("conflicts", ["event_id", "attempt", "input_id", "line_no", "arrived_us", "line"], conflicts),
            ("quarantine", ["attempt", "input_id", "path", "line_no", "byte_offset", "reason_code", "reason", "raw"], quarantined),
        ]
        for (table, columns, rows) in tables where !rows.isEmpty {
            try store.coordinator.insert(into: table, columns: columns, rows: rows, doing: "writing the \(table) of \(label)")
        }
        duplicates.removeAll()
        conflicts.removeAll()
        quarantined.removeAll()
    }

    /// Writes what is held, the input's flows, then its ledger row: the commit. Fails, leaving
    /// the input's rows invisible, when another ingest committed an input since this one began.
    mutating func commit(_ read: InputRead, sha256: String, size: Int64, startedAt: Int64,
                         finishedAt: @Sendable () -> Timestamp) throws {
        try waitForInserts()
        try writeSideRows()
        try shapes.save(store, doing: "writing the line shapes of \(label)")
        var flows = RowBinaryWriter()
        for (flow, total) in read.flows.sorted(by: { $0.key < $1.key }) {
            flows.uint64(attempt)
            flows.string(flow)
            flows.uint64(UInt64(total.events))
            flows.int64(total.firstTs)
            flows.int64(total.lastTs)
        }
        if !flows.isEmpty {
            try store.coordinator.insert(into: "input_flows", columns: ["attempt", "flow", "events", "first_ts_us", "last_ts_us"],
                                         rows: flows, doing: "writing the flows of \(label)")
        }
        let doing = "committing \(label) to the ledger of \(store.location)"
        let last = try ClickHouseLedger.lastID(store, doing: doing)
        guard last == inputID - 1 else {
            throw ClickHouseError(server: store.coordinator.server, doing: doing,
                                  reason: "another ingest committed input \(last) since this one began (as input \(inputID)); "
                                      + "this input's rows stay invisible: run the ingest again")
        }
        let c = read.result.counts
        var row = RowBinaryWriter()
        row.uint32(inputID)
        row.uint64(attempt)
        row.string(label)
        row.string(sha256)
        row.int64(size)
        for n in [c.lines, c.accepted, c.duplicates, c.conflicts, c.quarantined, c.unplanned] { row.uint64(UInt64(n)) }
        row.string(read.error == nil ? LedgerEntry.Outcome.complete.rawValue : LedgerEntry.Outcome.partial.rawValue)
        row.nullableString(read.error)
        row.int64(startedAt)
        row.int64(finishedAt().micros)
        row.nullableString(source?.definitionJSON)
        row.nullableString(source?.defaultFlow)
        try store.coordinator.insert(into: "inputs", columns: ClickHouseLedger.columns + ["source", "source_flow"], rows: row, doing: doing)
    }
}
