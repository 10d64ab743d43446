import EventLog
import GRDB
import GRDBSQLite
import Foundation

/// The dedupe index: the id hash and seq of every stored event, kept in sorted runs, as in a
/// log-structured merge tree. Each input adds its new (hash, seq) pairs as one run, sorted
/// once; a run is stored as rows of at most `maxEntries` pairs (`event_ids`, one row per
/// range of hashes, `lo` its lowest: the first row of a run starts at `Int64.min`), listed
/// with its size in `event_id_runs`. Runs of similar size are merged, so there are few of
/// them and a pair is rewritten a logarithmic number of times: adding a day to a large store
/// costs the day, not the store.
///
/// Ingest looks a new line's hash up in a Bloom filter of every stored hash first: almost
/// every line is a new event, and the filter says so without touching the store. Only a
/// possible match (a re-sent copy, or a false positive: under 1 %) reads one row per run.
enum EventIDs {
    /// Pairs per row (16 bytes each): 2048 pairs are 32 KiB.
    static let maxEntries = 2048
    /// More runs than this are merged whatever their sizes (each lookup reads every run).
    static let maxRuns = 8

    struct Entry: Comparable {
        var hash: Int64
        var seq: Int64
        static func < (a: Entry, b: Entry) -> Bool { (a.hash, a.seq) < (b.hash, b.seq) }
    }

    static func createTables(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE event_id_runs (run INTEGER PRIMARY KEY, pairs INTEGER NOT NULL)")
        try db.execute(sql: """
            CREATE TABLE event_ids (id INTEGER PRIMARY KEY, run INTEGER NOT NULL, lo INTEGER NOT NULL, entries BLOB NOT NULL)
            """)
        try db.execute(sql: "CREATE UNIQUE INDEX event_ids_by_run ON event_ids(run, lo)")
    }

    static func encode(_ entries: ArraySlice<Entry>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: entries.count * 16)
        out.withUnsafeMutableBytes { raw in
            var offset = 0
            for e in entries {
                raw.storeBytes(of: e.hash.littleEndian, toByteOffset: offset, as: Int64.self)
                raw.storeBytes(of: e.seq.littleEndian, toByteOffset: offset + 8, as: Int64.self)
                offset += 16
            }
        }
        return out
    }

    static func decode(_ raw: UnsafeRawBufferPointer, into out: inout [Entry]) {
        let n = raw.count / 16
        out.reserveCapacity(out.count + n)
        for i in 0..<n {
            out.append(Entry(hash: Int64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 16, as: Int64.self)),
                             seq: Int64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 16 + 8, as: Int64.self))))
        }
    }

    /// Finds the seqs stored under a hash: one row read per run.
    struct Finder {
        private let statement: RawStatement
        private let runs: [Int64]

        init(_ db: Database) throws {
            statement = try RawStatement(db, "SELECT entries FROM event_ids WHERE run = ? AND lo <= ? ORDER BY lo DESC LIMIT 1")
            runs = try Int64.fetchAll(db, sql: "SELECT run FROM event_id_runs ORDER BY run")
        }

        /// The seqs stored under `hash`, ascending (usually none; one for a stored event;
        /// more only when different ids share a hash).
        func seqs(of hash: Int64) throws -> [Int64] {
            var out: [Int64] = []
            for run in runs {
                statement.int(1, run)
                statement.int(2, hash)
                defer { statement.reset() }
                guard try statement.step("looking up an event id") else { continue }
                let raw = statement.bytes(0)
                let n = raw.count
                guard n > 0 else { continue }
                let count = n / 16
                func hashAt(_ i: Int) -> Int64 { Int64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 16, as: Int64.self)) }
                var lo = 0, hi = count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if hashAt(mid) < hash { lo = mid + 1 } else { hi = mid }
                }
                var i = lo
                while i < count && hashAt(i) == hash {
                    out.append(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 16 + 8, as: Int64.self)))
                    i += 1
                }
            }
            return out.sorted()
        }
    }

    /// Writes a run's pairs (in order) as rows of at most `maxEntries`, never parting the
    /// pairs of one hash.
    struct RunWriter {
        let run: Int64
        let maxEntries: Int
        private let insert: RawStatement
        private var buffer: [Entry] = []
        private var first = true
        private(set) var pairs = 0

        init(run: Int64, maxEntries: Int, in db: Database) throws {
            self.run = run
            self.maxEntries = maxEntries
            insert = try RawStatement(db, "INSERT INTO event_ids (run, lo, entries) VALUES (?, ?, ?)")
            buffer.reserveCapacity(maxEntries)
        }

        mutating func append(_ e: Entry) throws {
            if buffer.count >= maxEntries, let last = buffer.last, last.hash != e.hash { try flush() }
            buffer.append(e)
            pairs += 1
        }

        private mutating func flush() throws {
            guard let head = buffer.first else { return }
            insert.int(1, run)
            insert.int(2, first ? Int64.min : head.hash)
            encode(buffer[...]).withUnsafeBufferPointer { insert.blob(3, $0) }
            try insert.step("writing event ids")
            insert.reset()
            first = false
            buffer.removeAll(keepingCapacity: true)
        }

        /// Writes what is left and lists the run.
        mutating func finish(in db: Database) throws {
            try flush()
            try db.execute(sql: "INSERT INTO event_id_runs (run, pairs) VALUES (?, ?)", arguments: [run, pairs])
        }
    }

    /// Reads a run's pairs in order, a row at a time.
    struct RunReader {
        private let first: RawStatement
        private let next: RawStatement
        private let run: Int64
        /// The `lo` of the row read last (nil before the first).
        private var lo: Int64?
        private var chunk: [Entry] = []
        private var i = 0
        private var done = false

        init(run: Int64, in db: Database) throws {
            self.run = run
            first = try RawStatement(db, "SELECT lo, entries FROM event_ids WHERE run = ? ORDER BY lo LIMIT 1")
            next = try RawStatement(db, "SELECT lo, entries FROM event_ids WHERE run = ? AND lo > ? ORDER BY lo LIMIT 1")
        }

        mutating func peek() throws -> Entry? {
            while i >= chunk.count {
                guard !done else { return nil }
                chunk.removeAll(keepingCapacity: true)
                i = 0
                if let lo {
                    next.int(1, run)
                    next.int(2, lo)
                    try read(next)
                } else {
                    first.int(1, run)
                    try read(first)
                }
            }
            return chunk[i]
        }

        private mutating func read(_ s: RawStatement) throws {
            defer { s.reset() }
            guard try s.step("reading event ids") else {
                done = true
                return
            }
            lo = s.int64(0)
            let raw = s.bytes(1)
            if raw.count > 0 {
                EventIDs.decode(raw, into: &chunk)
            }
        }

        mutating func advance() { i += 1 }
    }

    /// Adds `new` (any order) as a run, then merges runs of similar size.
    static func add(_ new: [Entry], maxEntries: Int = maxEntries, in db: Database) throws {
        var ids = NewIDs()
        for e in new { ids.append(e) }
        try add(&ids, maxEntries: maxEntries, in: db)
    }

    /// Adds an input's new pairs as a run (leaving `new` empty), then merges runs of similar
    /// size.
    static func add(_ new: inout NewIDs, maxEntries: Int = maxEntries, in db: Database) throws {
        guard new.count > 0 else { return }
        var writer = try RunWriter(run: try nextRun(in: db), maxEntries: maxEntries, in: db)
        try new.drain { try writer.append($0) }
        try writer.finish(in: db)
        try compact(maxEntries: maxEntries, in: db)
    }

    private static func nextRun(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT coalesce(max(run), 0) + 1 FROM event_id_runs") ?? 1
    }

    /// Merges the two smallest runs while the smaller is at least half the other (or there
    /// are more than `maxRuns`).
    static func compact(maxEntries: Int = maxEntries, in db: Database) throws {
        while true {
            let runs = try Row.fetchAll(db, sql: "SELECT run, pairs FROM event_id_runs ORDER BY pairs, run")
                .map { (run: $0[0] as Int64, pairs: $0[1] as Int) }
            guard runs.count >= 2, runs[0].pairs * 2 >= runs[1].pairs || runs.count > maxRuns else { return }
            var a = try RunReader(run: runs[0].run, in: db)
            var b = try RunReader(run: runs[1].run, in: db)
            var writer = try RunWriter(run: try nextRun(in: db), maxEntries: maxEntries, in: db)
            while true {
                let x = try a.peek(), y = try b.peek()
                if let x, y.map({ x <= $0 }) ?? true {
                    try writer.append(x)
                    a.advance()
                } else if let y {
                    try writer.append(y)
                    b.advance()
                } else {
                    break
                }
            }
            try writer.finish(in: db)
            for run in [runs[0].run, runs[1].run] {
                try db.execute(sql: "DELETE FROM event_ids WHERE run = ?", arguments: [run])
                try db.execute(sql: "DELETE FROM event_id_runs WHERE run = ?", arguments: [run])
            }
        }
    }

    /// Every stored hash (in no particular order).
    static func forEachHash(in db: Database, _ body: (Int64) -> Void) throws {
        let statement = try RawStatement(db, "SELECT entries FROM event_ids")
        try statement.forEachRow("reading event ids") {
            let raw = statement.bytes(0)
            for i in 0..<(raw.count / 16) { body(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 16, as: Int64.self))) }
        }
    }

    /// Builds the index from the events of a store made before it (migration v3), whose
    /// `id_hash` column holds each event's slot: its hash, or the next free value after it
    /// when another id held that one. A slot right after another slot may have moved, so
    /// its true hash is computed again from the stored line (those few go to a second run).
    static func build(in db: Database) throws {
        try createTables(db)
        let reader = try StoredLineReader(db)
        var writer = try RunWriter(run: 1, maxEntries: maxEntries, in: db)
        var moved: [Entry] = []
        var previous: Int64?
        let rows = try Row.fetchCursor(db, sql: "SELECT id_hash, seq, user, flow, body FROM events ORDER BY id_hash, seq")
        while let row = try rows.next() {
            let slot: Int64 = row[0]
            let seq: Int64 = row[1]
            defer { previous = slot }
            guard let previous, previous &+ 1 == slot else {
                try writer.append(Entry(hash: slot, seq: seq))
                continue
            }
            let body: Data = row[4]
            let user: Int64 = row[2]
            let flow: Int64 = row[3]
            let line = try body.withUnsafeBytes { try reader.line(user: user, flow: flow, body: $0, seq: seq) }
            guard let id = line.withUnsafeBufferPointer({ StoredLine.eventID(of: $0) }) else {
                throw StoreError(doing: "indexing the event ids of the log", reason: "stored event \(seq) is not a valid line")
            }
            let hash = id.withUnsafeBufferPointer { StoredLine.idHash($0) }
            if hash == slot {
                try writer.append(Entry(hash: slot, seq: seq))
            } else {
                moved.append(Entry(hash: hash, seq: seq))
            }
        }
        if writer.pairs > 0 { try writer.finish(in: db) }
        try add(moved, in: db)
        try db.execute(sql: "DROP INDEX events_by_id_hash")
    }
}

/// A Bloom filter over 64-bit id hashes, blocked: the 4 bits of a hash are in one 64-byte
/// block, so a test or an insert touches one cache line (the filter is megabytes).
struct IDFilter {
    private var words: [UInt64]
    private let blocks: UInt64
    private(set) var count = 0
    /// The last seq of the saved copy this filter was loaded from or saved as (nil: none).
    private(set) var savedThrough: Int64?
    /// What the batch reads in `testAndInsert(_:valid:into:)` saw (never read).
    private var sink: UInt64 = 0

    /// Sized for `capacity` hashes at 12 bits each (under 1 % false positives), in at most
    /// `maxBlocks` blocks of 64 bytes: past that size a filter holds more hashes than it was
    /// sized for, and more of the new ones look held (each then costs a lookup in the index).
    init(capacity: Int, maxBlocks: Int = .max) {
        self.init(blocks: min(IDFilter.largest(maxBlocks), max(IDFilter.minBlocks, (capacity * 12 + 511) / 512)))
    }

    /// An empty filter of `blocks` blocks.
    private init(blocks: Int) {
        words = [UInt64](repeating: 0, count: blocks * 8)
        self.blocks = UInt64(blocks)
    }

    /// The smallest filter, in blocks (32 KiB).
    private static let minBlocks = 1 << 9

    /// The largest filter a limit of `maxBlocks` allows (never under `minBlocks`).
    private static func largest(_ maxBlocks: Int) -> Int { max(minBlocks, maxBlocks) }

    /// How many hashes it was sized for.
    var capacity: Int { Int(blocks) * 512 / 12 }

    /// The filter's size in bytes.
    var byteCount: Int { Int(blocks) * 64 }

    /// Whether it serves `more` hashes: sized for them, or as large as `maxBlocks` allows
    /// (a larger one must not be made; a smaller one could be).
    func hasRoom(for more: Int, maxBlocks: Int) -> Bool {
        let largest = IDFilter.largest(maxBlocks)
        if Int(blocks) > largest { return false }
        return Int(blocks) == largest || count + more <= capacity
    }

    @inline(__always)
    private static func mix(_ h: Int64) -> UInt64 {
        // splitmix64's finalizer: FNV-1a's low bits are not spread enough for a filter.
        var z = UInt64(bitPattern: h) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The block's first word, and the 4 bit positions (9 bits each) within the block.
    @inline(__always)
    private func probe(_ h: Int64) -> (base: Int, bits: UInt64) {
        Self.probe(h, blocks: blocks)
    }

    @inline(__always)
    private static func probe(_ h: Int64, blocks: UInt64) -> (base: Int, bits: UInt64) {
        let z = mix(h)
        let block = Int(truncatingIfNeeded: z.multipliedFullWidth(by: blocks).high)
        return (block * 8, z)
    }

    /// Adds `h`, counting it whether or not its bits were all set already.
    mutating func insert(_ h: Int64) {
        if testAndInsert(h) { count += 1 }
    }

    /// Whether the filter may have held `h` before, which it then holds.
    @inline(__always)
    mutating func testAndInsert(_ h: Int64) -> Bool {
        let (base, z) = probe(h)
        let held = words.withUnsafeMutableBufferPointer { Self.testAndSet(base: base, bits: z, in: $0) }
        if !held { count += 1 }
        return held
    }

    /// Whether the 4 bits `z` picks in the block at `base` were all set; sets them.
    @inline(__always)
    private static func testAndSet(base: Int, bits z: UInt64, in p: UnsafeMutableBufferPointer<UInt64>) -> Bool {
        var held = true
        for i in 0..<4 {
            let bit = Int((z >> (9 * UInt64(i))) & 511)
            let mask: UInt64 = 1 << UInt64(bit & 63)
            if p[base + bit >> 6] & mask == 0 {
                held = false
                p[base + bit >> 6] |= mask
            }
        }
        return held
    }

    /// `testAndInsert` for each hash of a batch in order, into `maybe` (false for a line
    /// without one, `valid` false). The blocks are read first, all of them: those reads do not
    /// wait on each other, so their cache misses overlap (one at a time, a miss a line was
    /// most of the filter's time), and the tests after them find the blocks in the cache.
    mutating func testAndInsert(_ hashes: [Int64], valid: [Bool], into maybe: inout [Bool]) {
        maybe.removeAll(keepingCapacity: true)
        let n = min(hashes.count, valid.count)
        var added = 0
        var touched: UInt64 = 0
        let blocks = self.blocks
        func probe(_ h: Int64) -> (base: Int, bits: UInt64) { Self.probe(h, blocks: blocks) }
        words.withUnsafeMutableBufferPointer { p in
            for i in 0..<n where valid[i] {
                let base = probe(hashes[i]).base
                // A block's 8 words may span two cache lines.
                touched ^= p[base] ^ p[base + 7]
            }
            for i in 0..<n {
                guard valid[i] else { maybe.append(false); continue }
                let (base, z) = probe(hashes[i])
                let held = Self.testAndSet(base: base, bits: z, in: p)
                if !held { added += 1 }
                maybe.append(held)
            }
        }
        // Kept, so that the reads above are not optimised away.
        sink ^= touched
        count += added
    }

    func mayContain(_ h: Int64) -> Bool {
        let (base, z) = probe(h)
        return words.withUnsafeBufferPointer { p in
            for i in 0..<4 {
                let bit = Int((z >> (9 * UInt64(i))) & 511)
                if p[base + bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return false }
            }
            return true
        }
    }

    /// A filter of every hash in the store, with room for `more` (in at most `maxBlocks`
    /// blocks): the one an ingest saved (`id_filter`) plus the events stored after it, else
    /// built from every stored hash.
    static func load(more: Int, maxBlocks: Int, in db: Database) throws -> IDFilter {
        if let saved = try loadSaved(more: more, maxBlocks: maxBlocks, in: db) { return saved }
        let stored = try Int.fetchOne(db, sql: "SELECT coalesce(sum(pairs), 0) FROM event_id_runs") ?? 0
        // Room for a quarter more than the store holds: a saved filter serves several inputs
        // before one is built from every hash again.
        var filter = IDFilter(capacity: stored + max(more, 1 << 20, stored / 4), maxBlocks: maxBlocks)
        try EventIDs.forEachHash(in: db) { filter.insert($0) }
        return filter
    }

    /// The bytes moved at a time between a filter and its saved copy.
    private static let chunkBytes = 1 << 20

    /// The saved filter with the hashes of the events stored after it, when it has room for
    /// `more`. (A filter holding a hash too many only costs a lookup; one too few would let a
    /// copy in, so the filter is saved with the seq it covers, in the transaction that stored
    /// those events, and every later event is added.) Its words are read straight into the
    /// filter, a chunk at a time: the saved copy is never in memory whole beside it.
    static func loadSaved(more: Int, maxBlocks: Int, in db: Database) throws -> IDFilter? {
        let statement = try RawStatement(db, "SELECT through_seq, blocks, count, length(words) FROM id_filter WHERE id = 1")
        defer { statement.reset() }
        guard try statement.step("reading the saved id filter") else { return nil }
        let through = statement.int64(0)
        let blocks = Int(statement.int64(1))
        let count = Int(statement.int64(2))
        let n = Int(statement.int64(3))
        statement.reset()
        guard blocks > 0, blocks <= largest(maxBlocks), n == blocks * 64 else { return nil }
        var filter = IDFilter(blocks: blocks)
        filter.count = count
        try withBlob(rowID: 1, writing: false, doing: "reading the saved id filter", in: db) { blob in
            try filter.words.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return }
                var offset = 0
                while offset < n {
                    let size = min(chunkBytes, n - offset)
                    let rc = sqlite3_blob_read(blob, base + offset, Int32(size), Int32(offset))
                    guard rc == SQLITE_OK else {
                        throw StoreError(doing: "reading the saved id filter at byte \(offset)", reason: String(cString: sqlite3_errstr(rc)))
                    }
                    offset += size
                }
            }
        }
        if 1.littleEndian != 1 {
            for i in filter.words.indices { filter.words[i] = UInt64(littleEndian: filter.words[i]) }
        }
        filter.savedThrough = through
        let later = try RawStatement(db, "SELECT id_hash FROM events WHERE seq > ?")
        later.int(1, through)
        try later.forEachRow("reading the ids stored after the saved id filter") {
            filter.insert(later.int64(0))
        }
        guard filter.hasRoom(for: more, maxBlocks: maxBlocks) else { return nil }
        return filter
    }

    /// Runs `body` with the saved filter's words (`id_filter` row `rowID`) open for
    /// incremental reading or writing.
    private static func withBlob(rowID: Int64, writing: Bool, doing: String, in db: Database,
                                 _ body: (OpaquePointer) throws -> Void) throws {
        var blob: OpaquePointer?
        let rc = sqlite3_blob_open(db.sqliteConnection, "main", "id_filter", "words", rowID, writing ? 1 : 0, &blob)
        guard rc == SQLITE_OK, let blob else {
            let reason = String(cString: sqlite3_errmsg(db.sqliteConnection))
            sqlite3_blob_close(blob)
            throw StoreError(doing: doing, reason: reason)
        }
        defer { sqlite3_blob_close(blob) }
        try body(blob)
    }

    /// Saves the filter as holding every event up to `through` (in the transaction that
    /// stored them), unless the saved copy misses fewer events than an eighth of the filter:
    /// the next load adds those from the log, cheaper than rewriting megabytes each time.
    mutating func saveIfBehind(through: Int64, in db: Database) throws {
        if let saved = savedThrough, through - saved <= Int64(count / 8) { return }
        try save(through: through, in: db)
    }

    /// Saves the filter as holding every event up to `through` (in the transaction that
    /// stored them). The row is made with zeros, then the words are written into it a chunk at
    /// a time (bound whole, SQLite would copy them all into one record first).
    mutating func save(through: Int64, in db: Database) throws {
        let statement = try RawStatement(db, """
            INSERT OR REPLACE INTO id_filter (id, through_seq, blocks, count, words) VALUES (1, ?, ?, ?, zeroblob(?))
            """)
        statement.int(1, through)
        statement.int(2, Int64(blocks))
        statement.int(3, Int64(count))
        statement.int(4, Int64(byteCount))
        _ = try statement.step("saving the id filter")
        statement.reset()
        let n = byteCount
        try IDFilter.withBlob(rowID: 1, writing: true, doing: "saving the id filter", in: db) { blob in
            // Little-endian words, as loaded (a chunk's copy only on a big-endian machine).
            var chunk = [UInt64]()
            var first = 0
            while first < words.count {
                let end = min(words.count, first + IDFilter.chunkBytes / 8)
                let rc: Int32
                if 1.littleEndian == 1 {
                    rc = words.withUnsafeBytes { raw in
                        sqlite3_blob_write(blob, raw.baseAddress.map { $0 + first * 8 }, Int32((end - first) * 8), Int32(first * 8))
                    }
                } else {
                    chunk.removeAll(keepingCapacity: true)
                    chunk.append(contentsOf: words[first..<end].map(\.littleEndian))
                    rc = chunk.withUnsafeBytes { sqlite3_blob_write(blob, $0.baseAddress, Int32($0.count), Int32(first * 8)) }
                }
                guard rc == SQLITE_OK else {
                    throw StoreError(doing: "saving the id filter at byte \(first * 8) of \(n)", reason: String(cString: sqlite3_errstr(rc)))
                }
                first = end
            }
        }
        savedThrough = through
    }
}

/// The ids an input added so far, for finding a copy later in the same input. They are kept
/// the way the store keeps its runs: a short unsorted tail, and sorted chunks, a new chunk
/// merged into the one before while that one is no larger (up to `chunkLimit` pairs). A
/// lookup scans the tail and searches each chunk; an append costs a few moves in order (an
/// open-addressing table before cost the writer a cache miss a line), and the pairs leave in
/// order by a merge of the chunks, 16 bytes a pair in memory and no sorted copy.
struct NewIDs {
    let tailLimit: Int
    let chunkLimit: Int
    private var chunks: [[EventIDs.Entry]] = []
    private var tail: [EventIDs.Entry] = []
    /// Pairs added.
    private(set) var count = 0

    init(tailLimit: Int = 256, chunkLimit: Int = 1 << 16) {
        self.tailLimit = max(1, tailLimit)
        self.chunkLimit = max(self.tailLimit, chunkLimit)
        tail.reserveCapacity(self.tailLimit)
    }

    mutating func append(_ e: EventIDs.Entry) {
        tail.append(e)
        count += 1
        if tail.count >= tailLimit { settleTail() }
    }

    /// Sorts the tail into a chunk, merging it into the chunks before while they are no larger.
    private mutating func settleTail() {
        var run = tail
        run.sort()
        tail.removeAll(keepingCapacity: true)
        while let last = chunks.last, last.count <= run.count, last.count + run.count <= chunkLimit {
            run = NewIDs.merge(chunks.removeLast(), run)
        }
        chunks.append(run)
    }

    private static func merge(_ a: [EventIDs.Entry], _ b: [EventIDs.Entry]) -> [EventIDs.Entry] {
        var out: [EventIDs.Entry] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if b[j] < a[i] {
                out.append(b[j])
                j += 1
            } else {
                out.append(a[i])
                i += 1
            }
        }
        out.append(contentsOf: a[i...])
        out.append(contentsOf: b[j...])
        return out
    }

    /// The seqs added under `hash`, in arrival order.
    func seqs(of hash: Int64) -> [Int64] {
        var out: [Int64] = []
        for e in tail where e.hash == hash { out.append(e.seq) }
        for chunk in chunks {
            var lo = 0, hi = chunk.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if chunk[mid].hash < hash { lo = mid + 1 } else { hi = mid }
            }
            while lo < chunk.count && chunk[lo].hash == hash {
                out.append(chunk[lo].seq)
                lo += 1
            }
        }
        return out.sorted()
    }

    /// Hands every pair to `body` in (hash, seq) order, merging the chunks, and leaves the
    /// set empty.
    mutating func drain(_ body: (EventIDs.Entry) throws -> Void) rethrows {
        if !tail.isEmpty { settleTail() }
        let chunks = self.chunks
        self = NewIDs(tailLimit: tailLimit, chunkLimit: chunkLimit)
        // A binary heap of chunk numbers, by each chunk's next pair.
        var next = [Int](repeating: 0, count: chunks.count)
        var heap = Array(chunks.indices)
        func less(_ a: Int, _ b: Int) -> Bool { chunks[a][next[a]] < chunks[b][next[b]] }
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < heap.count && less(heap[l], heap[m]) { m = l }
                if r < heap.count && less(heap[r], heap[m]) { m = r }
                if m == i { return }
                heap.swapAt(i, m)
                i = m
            }
        }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
        while let top = heap.first {
            try body(chunks[top][next[top]])
            next[top] += 1
            if next[top] == chunks[top].count {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { siftDown(0) }
        }
    }
}
