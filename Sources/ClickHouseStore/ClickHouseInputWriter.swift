import Foundation
import FunnelModel
import EventLog
import StoreCore
import LineParsing

/// Writes one input's parsed lines under its attempt, as the SQLite `InputWriter` decides
/// them: each line quarantined, a duplicate or conflict of a stored event (first arrival
/// wins), or an event with the next seq. Lines with an event wait in a chunk: its ids are
/// looked up among the visible events at once, then its events go in one insert. `commit`
/// writes the input's flows and, last, its ledger row.
struct ClickHouseInputWriter {
    let store: ClickHouseStore
    let label: String
    let inputID: UInt32
    let attempt: UInt64
    /// The committed attempts and this one: the rows a lookup sees.
    let visible: String
    /// When the ingest that reads the input started (the arrival time of its copies).
    let arrived: Int64
    let flowSteps: [String: Set<String>]
    let chunkRows: Int
    /// The seq of the next accepted event.
    private var nextSeq: UInt64
    private(set) var result = InputResult()
    /// The accepted lines with their seqs.
    private(set) var accepted = AcceptedLines()
    private var keys: [IngestKey] = []
    private var users: [String] = []
    /// Each user's shard (`ClickHouseStore.shards`), for the users located so far.
    private var shardOf: [Int] = []

    /// A line with an event, waiting in the chunk: its bytes are `bytes[range]`, its event
    /// id's `bytes[id]` (inside the line, or after it when the id was written with escapes).
    private struct Waiting {
        var line: UInt32
        var key: Int
        var user: Int
        var micros: Int64
        var idHash: Int64
        var id: Range<Int>
        var range: Range<Int>
    }
    private var waiting: [Waiting] = []
    private var bytes: [UInt8] = []
    /// The last chunk's inserts (one a shard), still under way while the next chunk fills and
    /// is looked up.
    private var pending: [ClickHouseClient.PendingInsert] = []
    /// The last chunk's accepted lines by id (in `sentBytes`): a lookup made while its inserts
    /// were under way may not see them, so the next chunk compares with them here.
    private var sent = EventIDIndex()
    private var sentBytes: [UInt8] = []
    /// This chunk's accepted lines by id (in `bytes`): a later copy is compared with them.
    private var firstCopies = EventIDIndex()
    /// The chunk's rows for each shard, kept between chunks (their room is reused).
    private var shardRows: [RowBinaryWriter] = []
    private var duplicates = RowBinaryWriter()
    private var conflicts = RowBinaryWriter()
    private var quarantined = RowBinaryWriter()

    init(store: ClickHouseStore, label: String, inputID: UInt32, attempt: UInt64, committed: [UInt64],
         firstSeq: UInt64, arrived: Int64, flowSteps: [String: Set<String>], chunkRows: Int) {
        self.store = store
        self.label = label
        self.inputID = inputID
        self.attempt = attempt
        visible = ClickHouseSQL.list(committed + [attempt])
        nextSeq = firstSeq
        self.arrived = arrived
        self.flowSteps = flowSteps
        self.chunkRows = chunkRows
    }

    static let eventColumns = ["seq", "attempt", "input_id", "line_no", "event_id", "user_id", "flow", "step", "event", "ts_us", "line"]

    /// Takes every line of `batch`: quarantined lines are recorded, the others wait in the
    /// chunk, which is written once it is full.
    mutating func write(_ batch: LineBatch) throws {
        try batch.bytes.withUnsafeBufferPointer { b in
            for line in batch.lines {
                result.counts.lines += 1
                let lineBytes = UnsafeBufferPointer(rebasing: b[line.start..<(line.start + line.count)])
                guard let env = line.envelope else {
                    quarantine(line, lineBytes)
                    continue
                }
                let key = Int(line.keys.key), user = Int(line.keys.user)
                // The parser numbers keys and users in first-seen order: a new one is the next.
                guard key >= 0 && key <= keys.count, user >= 0 && user <= users.count else {
                    throw ClickHouseError(server: nil, doing: "reading \(label) line \(line.number)",
                                          reason: "the parser's key \(key) or user \(user) is out of order")
                }
                if key == keys.count { keys.append(IngestKey(env, in: b, flowSteps: flowSteps)) }
                if user == users.count { users.append(Self.text(env.userID, in: b)) }
                let start = bytes.count
                bytes.append(contentsOf: lineBytes)
                let end = bytes.count
                let idStart = Int(env.eventID.start), idEnd = Int(env.eventID.end)
                let id: Range<Int>
                if idStart >= line.start && idEnd <= line.start + line.count {
                    id = (start + idStart - line.start)..<(start + idEnd - line.start)
                } else {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: b[idStart..<idEnd]))
                    id = end..<bytes.count
                }
                waiting.append(Waiting(line: UInt32(line.number), key: key, user: user, micros: env.time.micros,
                                       idHash: line.keys.idHash, id: id, range: start..<end))
            }
        }
        if waiting.count >= chunkRows || bytes.count >= Tuning.chunkBytes { try writeChunk() }
        if duplicates.bytes.count + conflicts.bytes.count + quarantined.bytes.count >= Tuning.sideRowBytes { try writeSideRows() }
    }

    private static func text(_ r: StringRef, in b: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: b[Int(r.start)..<Int(r.end)]), as: UTF8.self)
    }

    private mutating func quarantine(_ line: ParsedLine, _ lineBytes: UnsafeBufferPointer<UInt8>) {
        let rejection = line.quarantineReason
        quarantined.uint64(attempt)
        quarantined.uint32(inputID)
        quarantined.string(label)
        quarantined.uint32(UInt32(line.number))
        quarantined.int64(line.offset)
        quarantined.string(rejection.code.rawValue)
        quarantined.string(rejection.text)
        quarantined.string(bytes: lineBytes)
        result.countQuarantined(rejection)
    }

    /// Decides the chunk's lines in order against the visible events with their ids, the last
    /// chunk's and this chunk's earlier lines, and starts the inserts of its events, one a
    /// shard. The lookup runs while the last chunk's inserts are still under way; they are
    /// waited for before these start, so at most one a shard is in flight.
    private mutating func writeChunk() throws {
        guard !waiting.isEmpty else { return }
        let stored = try storedLines()
        try locateUsers()
        try waitForInserts()
        if shardRows.isEmpty { shardRows = store.servers.map { _ in RowBinaryWriter() } }
        let firstLine = waiting[0].line, lastLine = waiting[waiting.count - 1].line
        firstCopies.removeAll(keepingRoomFor: waiting.count)
        bytes.withUnsafeBufferPointer { b in
            sentBytes.withUnsafeBufferPointer { sentB in
                stored.bytes.withUnsafeBufferPointer { storedB in
                    for w in waiting {
                        let line = UnsafeBufferPointer(rebasing: b[w.range])
                        let id = UnsafeBufferPointer(rebasing: b[w.id])
                        let same: Bool
                        if let s = stored.index.find(id, hash: w.idHash, in: storedB) {
                            same = EventIdentity.sameEvent(UnsafeBufferPointer(rebasing: storedB[s.line]), line)
                        } else if let first = sent.find(id, hash: w.idHash, in: sentB) {
                            same = EventIdentity.sameEvent(UnsafeBufferPointer(rebasing: sentB[first.line]), line)
                        } else if let first = firstCopies.findOrAdd(id, hash: w.idHash, entry: .init(id: w.id, line: w.range), in: b) {
                            same = EventIdentity.sameEvent(UnsafeBufferPointer(rebasing: b[first.line]), line)
                        } else {
                            accepted.append(line: Int(w.line), seq: Int64(nextSeq))
                            let key = keys[w.key]
                            let s = shardOf[w.user]
                            shardRows[s].uint64(nextSeq)
                            shardRows[s].uint64(attempt)
                            shardRows[s].uint32(inputID)
                            shardRows[s].uint32(w.line)
                            shardRows[s].string(bytes: id)
                            shardRows[s].string(users[w.user])
                            shardRows[s].string(key.flow)
                            shardRows[s].nullableString(key.step)
                            shardRows[s].string(key.rawName)
                            shardRows[s].int64(w.micros)
                            shardRows[s].string(bytes: line)
                            nextSeq += 1
                            result.countAccepted(at: w.micros, key: &keys[w.key])
                            continue
                        }
                        if same {
                            duplicates.string(bytes: id)
                            duplicates.uint64(attempt)
                            duplicates.uint32(inputID)
                            duplicates.uint32(w.line)
                            duplicates.int64(arrived)
                            result.counts.duplicates += 1
                        } else {
                            conflicts.string(bytes: id)
                            conflicts.uint64(attempt)
                            conflicts.uint32(inputID)
                            conflicts.uint32(w.line)
                            conflicts.int64(arrived)
                            conflicts.string(bytes: line)
                            result.counts.conflicts += 1
                        }
                    }
                }
            }
        }
        waiting.removeAll(keepingCapacity: true)
        swap(&bytes, &sentBytes)
        bytes.removeAll(keepingCapacity: true)
        swap(&sent, &firstCopies)
        // Each shard's rows go straight to its own table, all shards at once.
        for shard in shardRows.indices where !shardRows[shard].isEmpty {
            let server = store.servers[shard]
            pending.append(try server.startInsert(into: store.layout.shardEvents, columns: Self.eventColumns, rows: shardRows[shard],
                                                  doing: "writing the events of \(label) lines \(firstLine)–\(lastLine) to \(server.server)"))
            shardRows[shard].removeAll()
        }
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

    /// The visible events with the chunk's ids (the first arrival, should two have one): their
    /// ids and lines in `bytes`, found by `index`.
    private struct StoredCopies {
        var bytes: [UInt8] = []
        var index = EventIDIndex()
    }

    private func storedLines() throws -> StoredCopies {
        let doing = "looking up \(waiting.count) event ids of \(label) among the stored events"
        // The ids go as an external table: the server reads them as data, much faster than
        // an IN list of as many literals parsed as SQL. Their hashes pick the candidate rows
        // first (PREWHERE reads only that column), the ids themselves decide.
        var rows: [UInt8] = []
        rows.reserveCapacity(waiting.count * 40)
        bytes.withUnsafeBufferPointer { b in
            for w in waiting {
                ClickHouseSQL.appendTSV(UnsafeBufferPointer(rebasing: b[w.id]), to: &rows)
                rows.append(0x0A)
            }
        }
        let data = try store.coordinator.read("""
            SELECT event_id, line FROM events PREWHERE id_hash IN (SELECT cityHash64(event_id) FROM ids)
            WHERE event_id IN ids AND attempt IN \(visible)
            ORDER BY seq FORMAT RowBinary
            """, doing: doing, external: ClickHouseClient.ExternalTable(name: "ids", structure: "event_id String", rows: Data(rows)))
        var reader = RowBinaryReader(data, doing: doing)
        var out = StoredCopies()
        while !reader.isAtEnd {
            let idStart = out.bytes.count
            out.bytes.append(contentsOf: try reader.bytesOfString())
            let lineStart = out.bytes.count
            out.bytes.append(contentsOf: try reader.bytesOfString())
            let entry = EventIDIndex.Entry(id: idStart..<lineStart, line: lineStart..<out.bytes.count)
            out.bytes.withUnsafeBufferPointer { b in
                let id = UnsafeBufferPointer(rebasing: b[entry.id])
                _ = out.index.findOrAdd(id, hash: EventIdentity.idHash(id), entry: entry, in: b)
            }
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
    mutating func commit(_ end: ParseEnd, sha256: String, size: Int64, startedAt: Int64,
                         finishedAt: @Sendable () -> Timestamp) throws -> InputResult {
        try writeChunk()
        try waitForInserts()
        try writeSideRows()
        let errorText = result.end(end, label: label)
        var flows = RowBinaryWriter()
        for (flow, total) in InputResult.flowTotals(keys).sorted(by: { $0.key < $1.key }) {
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
        let c = result.counts
        var row = RowBinaryWriter()
        row.uint32(inputID)
        row.uint64(attempt)
        row.string(label)
        row.string(sha256)
        row.int64(size)
        for n in [c.lines, c.accepted, c.duplicates, c.conflicts, c.quarantined, c.unplanned] { row.uint64(UInt64(n)) }
        row.string(errorText == nil ? LedgerEntry.Outcome.complete.rawValue : LedgerEntry.Outcome.partial.rawValue)
        row.nullableString(errorText)
        row.int64(startedAt)
        row.int64(finishedAt().micros)
        try store.coordinator.insert(into: "inputs", columns: ClickHouseLedger.columns, rows: row, doing: doing)
        return result
    }
}
