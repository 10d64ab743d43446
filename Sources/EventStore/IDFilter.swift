import LogFiles
import GRDB
import GRDBSQLite
import Foundation
import StoreCore

/// A Bloom filter over 64-bit id hashes, blocked: the 4 bits of a hash are in one 64-byte
/// block, so a test or an insert touches one cache line (the filter is megabytes).
struct IDFilter {
    private var words: [UInt64]
    private let blocks: UInt64
    private(set) var count = 0
    /// The last seq of the saved copy this filter was loaded from or saved as (nil: none).
    private(set) var savedThrough: Int64?
    /// What the batch reads in `testAndInsert(_:into:)` saw (never read).
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

    /// A filter of no blocks, holding no storage: what a writer keeps once it handed its own
    /// on (never tested or filled).
    static var handedOn: IDFilter { IDFilter(blocks: 0) }

    /// The smallest filter, in blocks (32 KiB).
    private static let minBlocks = Tuning.filterMinBlocks

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

    /// The `i`th of the 4 bits `z` picks in the block at `base`: its word and its mask there.
    @inline(__always)
    private static func bit(_ i: Int, of z: UInt64, base: Int) -> (word: Int, mask: UInt64) {
        let bit = Int((z >> (9 * UInt64(i))) & 511)
        return (base + bit >> 6, 1 << UInt64(bit & 63))
    }

    /// Whether the 4 bits `z` picks in the block at `base` were all set; sets them.
    @inline(__always)
    private static func testAndSet(base: Int, bits z: UInt64, in p: UnsafeMutableBufferPointer<UInt64>) -> Bool {
        var held = true
        for i in 0..<4 {
            let (word, mask) = bit(i, of: z, base: base)
            if p[word] & mask == 0 {
                held = false
                p[word] |= mask
            }
        }
        return held
    }

    /// Whether the filter may have held each hash of a batch before the batch, into `maybe`;
    /// then adds them all. A copy of an earlier hash of the same batch is not reported for
    /// it: the caller finds copies within its batch itself, and a lookup in the store could
    /// only miss them. The blocks are read first, all of them: those reads do not wait on
    /// each other, so their cache misses overlap (one at a time, a miss a line was most of the
    /// filter's time), and the tests and inserts after them find the blocks in the cache.
    mutating func testAndInsert(_ hashes: [Int64], into maybe: inout [Bool]) {
        maybe.removeAll(keepingCapacity: true)
        var added = 0
        var touched: UInt64 = 0
        let blocks = self.blocks
        func probe(_ h: Int64) -> (base: Int, bits: UInt64) { Self.probe(h, blocks: blocks) }
        words.withUnsafeMutableBufferPointer { p in
            for h in hashes {
                let base = probe(h).base
                // A block's 8 words may span two cache lines.
                touched ^= p[base] ^ p[base + 7]
            }
            for h in hashes {
                let (base, z) = probe(h)
                maybe.append(Self.test(base: base, bits: z, in: UnsafeBufferPointer(p)))
            }
            for h in hashes {
                let (base, z) = probe(h)
                if !Self.testAndSet(base: base, bits: z, in: p) { added += 1 }
            }
        }
        // Kept, so that the reads above are not optimised away.
        sink ^= touched
        count += added
    }

    /// Whether the 4 bits `z` picks in the block at `base` are all set.
    @inline(__always)
    private static func test(base: Int, bits z: UInt64, in p: UnsafeBufferPointer<UInt64>) -> Bool {
        for i in 0..<4 {
            let (word, mask) = bit(i, of: z, base: base)
            if p[word] & mask == 0 { return false }
        }
        return true
    }

    func mayContain(_ h: Int64) -> Bool {
        let (base, z) = probe(h)
        return words.withUnsafeBufferPointer { p in Self.test(base: base, bits: z, in: p) }
    }

    /// A filter of every hash in the store, with room for `more` (in at most `maxBlocks`
    /// blocks): the one an ingest saved (`id_filter`) plus the events stored after it, else
    /// built from every stored hash.
    static func load(more: Int, maxBlocks: Int, in db: Database) throws -> IDFilter {
        if let saved = try loadSaved(more: more, maxBlocks: maxBlocks, in: db) { return saved }
        let stored = try Int.fetchOne(db, sql: "SELECT coalesce(sum(pairs), 0) FROM event_id_runs") ?? 0
        // Room for a quarter more than the store holds: a saved filter serves several inputs
        // before one is built from every hash again.
        var filter = IDFilter(capacity: stored + max(more, Tuning.filterRebuildRoom, stored / 4), maxBlocks: maxBlocks)
        try EventIDs.forEachHash(in: db) { filter.insert($0) }
        return filter
    }

    /// The bytes moved at a time between a filter and its saved copy.
    private static let chunkBytes = Tuning.filterChunkBytes

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
                        throw StoreError(doing: "reading the saved id filter at byte \(offset)", reason: String(cString: sqlite3_errstr(rc)),
                                         kind: StoreError.Kind(sqliteCode: rc))
                    }
                    offset += size
                }
            }
        }
        if 1.littleEndian != 1 {
            for i in filter.words.indices { filter.words[i] = UInt64(littleEndian: filter.words[i]) }
        }
        filter.savedThrough = through
        try LogRows(db).forEach(LogRows.Selection(after: through), doing: "reading the ids stored after the saved id filter") { row in
            filter.insert(row.idHash)
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
            throw StoreError(doing: doing, reason: reason, kind: StoreError.Kind(sqliteCode: rc))
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
                    throw StoreError(doing: "saving the id filter at byte \(first * 8) of \(n)", reason: String(cString: sqlite3_errstr(rc)),
                                     kind: StoreError.Kind(sqliteCode: rc))
                }
                first = end
            }
        }
        savedThrough = through
    }
}
