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
                let n = Int(sqlite3_column_bytes(statement.handle, 0))
                guard n > 0, let p = sqlite3_column_blob(statement.handle, 0) else { continue }
                let raw = UnsafeRawBufferPointer(start: p, count: n)
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
            lo = sqlite3_column_int64(s.handle, 0)
            let n = Int(sqlite3_column_bytes(s.handle, 1))
            if n > 0, let p = sqlite3_column_blob(s.handle, 1) {
                EventIDs.decode(UnsafeRawBufferPointer(start: p, count: n), into: &chunk)
            }
        }

        mutating func advance() { i += 1 }
    }

    /// Adds `new` (any order; sorted in place) as a run, then merges runs of similar size.
    static func add(sorting new: inout [Entry], maxEntries: Int = maxEntries, in db: Database) throws {
        guard !new.isEmpty else { return }
        sortEntries(&new)
        var writer = try RunWriter(run: try nextRun(in: db), maxEntries: maxEntries, in: db)
        for e in new { try writer.append(e) }
        try writer.finish(in: db)
        try compact(maxEntries: maxEntries, in: db)
    }

    /// Sorts pairs by (hash, seq): a radix sort on the hash, a byte a pass (a comparison sort
    /// of 200,000 random hashes cost the writer 5 times as much), then pairs of one hash by
    /// seq (they are rare: different ids with one hash, or a hash added twice).
    static func sortEntries(_ entries: inout [Entry]) {
        let n = entries.count
        guard n > 256 else {
            entries.sort()
            return
        }
        // Counts of each byte of the hash (sign bit flipped: signed order), all passes at once.
        var counts = [Int](repeating: 0, count: 8 * 256)
        @inline(__always) func key(_ e: Entry) -> UInt64 { UInt64(bitPattern: e.hash) ^ (1 << 63) }
        for e in entries {
            var k = key(e)
            for pass in 0..<8 {
                counts[pass &* 256 &+ Int(k & 0xFF)] &+= 1
                k >>= 8
            }
        }
        var scratch = [Entry](repeating: Entry(hash: 0, seq: 0), count: n)
        var sourceIsEntries = true
        for pass in 0..<8 {
            let base = pass * 256
            // A byte that is the same in every hash leaves the order as it is.
            if counts[base..<(base + 256)].contains(n) { continue }
            var offsets = [Int](repeating: 0, count: 256)
            var sum = 0
            for b in 0..<256 {
                offsets[b] = sum
                sum += counts[base + b]
            }
            let shift = UInt64(8 * pass)
            func scatter(_ from: UnsafeBufferPointer<Entry>, _ to: UnsafeMutableBufferPointer<Entry>) {
                offsets.withUnsafeMutableBufferPointer { o in
                    for e in from {
                        let b = Int((key(e) >> shift) & 0xFF)
                        to[o[b]] = e
                        o[b] &+= 1
                    }
                }
            }
            if sourceIsEntries {
                entries.withUnsafeBufferPointer { from in scratch.withUnsafeMutableBufferPointer { scatter(from, $0) } }
            } else {
                scratch.withUnsafeBufferPointer { from in entries.withUnsafeMutableBufferPointer { scatter(from, $0) } }
            }
            sourceIsEntries.toggle()
        }
        if !sourceIsEntries { swap(&entries, &scratch) }
        // Pairs that share a hash, by seq (stable passes kept their arrival order).
        var i = 0
        while i < n {
            var j = i + 1
            while j < n && entries[j].hash == entries[i].hash { j += 1 }
            if j - i > 1 { entries[i..<j].sort() }
            i = j
        }
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
        while try statement.step("reading event ids") {
            let n = Int(sqlite3_column_bytes(statement.handle, 0))
            guard n > 0, let p = sqlite3_column_blob(statement.handle, 0) else { continue }
            let raw = UnsafeRawBufferPointer(start: p, count: n)
            for i in 0..<(n / 16) { body(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 16, as: Int64.self))) }
        }
        statement.reset()
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
        try add(sorting: &moved, in: db)
        try db.execute(sql: "DROP INDEX events_by_id_hash")
    }
}

/// A Bloom filter over 64-bit id hashes, blocked: the 4 bits of a hash are in one 64-byte
/// block, so a test or an insert touches one cache line (the filter is megabytes).
struct IDFilter {
    private var words: [UInt64]
    private let blocks: UInt64
    private(set) var count = 0

    /// Sized for `capacity` hashes at 12 bits each (under 1 % false positives).
    init(capacity: Int) {
        let blockCount = max(1 << 9, (capacity * 12 + 511) / 512)
        words = [UInt64](repeating: 0, count: blockCount * 8)
        blocks = UInt64(blockCount)
    }

    /// How many hashes it was sized for.
    var capacity: Int { Int(blocks) * 512 / 12 }

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
        let z = Self.mix(h)
        let block = Int(truncatingIfNeeded: z.multipliedFullWidth(by: blocks).high)
        return (block * 8, z)
    }

    /// Adds `h`, counting it whether or not its bits were all set already.
    mutating func insert(_ h: Int64) {
        if testAndInsert(h) { count += 1 }
    }

    /// Whether the filter may have held `h` before, which it then holds. (Ingest calls it for
    /// a batch's lines in one loop: the cache misses of many lines overlap.)
    @inline(__always)
    mutating func testAndInsert(_ h: Int64) -> Bool {
        let (base, z) = probe(h)
        let held = words.withUnsafeMutableBufferPointer { p -> Bool in
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
        if !held { count += 1 }
        return held
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

    /// A filter of every hash in the store, with room for `more`.
    static func load(more: Int, in db: Database) throws -> IDFilter {
        let stored = try Int.fetchOne(db, sql: "SELECT coalesce(sum(pairs), 0) FROM event_id_runs") ?? 0
        var filter = IDFilter(capacity: stored + max(more, 1 << 20))
        try EventIDs.forEachHash(in: db) { filter.insert($0) }
        return filter
    }
}

/// The ids an input added so far, for finding a copy later in the same input: the pairs in
/// arrival order, and an open-addressing table of their positions (4 bytes a slot).
struct NewIDs {
    private(set) var entries: [EventIDs.Entry] = []
    private var slots: [Int32] = []
    private var mask = 0

    init() {
        slots = [Int32](repeating: -1, count: 1 << 16)
        mask = slots.count - 1
    }

    @inline(__always)
    private static func start(_ hash: Int64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: hash) &* 0x9E37_79B9_7F4A_7C15) >> 20) & mask
    }

    mutating func append(_ e: EventIDs.Entry) {
        if (entries.count + 1) * 2 > slots.count { grow() }
        entries.append(e)
        place(Int32(entries.count - 1))
    }

    private mutating func place(_ index: Int32) {
        var i = NewIDs.start(entries[Int(index)].hash, mask)
        while slots[i] >= 0 { i = (i + 1) & mask }
        slots[i] = index
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        mask = slots.count - 1
        for i in entries.indices { place(Int32(i)) }
    }

    /// The seqs added under `hash`, in arrival order.
    func seqs(of hash: Int64) -> [Int64] {
        var out: [Int64] = []
        var i = NewIDs.start(hash, mask)
        while slots[i] >= 0 {
            let e = entries[Int(slots[i])]
            if e.hash == hash { out.append(e.seq) }
            i = (i + 1) & mask
        }
        return out.sorted()
    }

    /// The pairs, handed over (the table is left empty).
    mutating func take() -> [EventIDs.Entry] {
        slots = []
        mask = 0
        defer { entries = [] }
        return entries
    }
}
