import EventLog
import GRDB
import GRDBSQLite
import Foundation

/// The dedupe index: the id hash and seq of every stored event, kept in `event_ids` as
/// sorted runs of (hash, seq) pairs, one row per range of hashes (`lo` is the range's lowest
/// hash; a row holds at most `maxEntries` pairs and splits when it grows past them).
///
/// Ingest looks a new line's hash up in a Bloom filter of every stored hash first: almost
/// every line is a new event, and the filter says so without touching the store. Only a
/// possible match (a re-sent copy, or a false positive in about 150) reads its range.
/// The input's new hashes are merged into the ranges once, at the end of the input, in hash
/// order: about one row write per range instead of one index insert per event.
enum EventIDs {
    /// Pairs per range row (16 bytes each): 2048 pairs are 32 KiB.
    static let maxEntries = 2048

    struct Entry: Comparable {
        var hash: Int64
        var seq: Int64
        static func < (a: Entry, b: Entry) -> Bool { (a.hash, a.seq) < (b.hash, b.seq) }
    }

    static func createTable(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE event_ids (lo INTEGER PRIMARY KEY, entries BLOB NOT NULL)")
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

    /// The seqs stored under `hash` (usually none, one for a stored event, more only when
    /// different ids share a hash).
    static func seqs(of hash: Int64, using find: RawStatement) throws -> [Int64] {
        find.int(1, hash)
        defer { find.reset() }
        guard try find.step("looking up an event id") else { return [] }
        let n = Int(sqlite3_column_bytes(find.handle, 0))
        guard n > 0, let p = sqlite3_column_blob(find.handle, 0) else { return [] }
        let raw = UnsafeRawBufferPointer(start: p, count: n)
        let count = n / 16
        func hashAt(_ i: Int) -> Int64 { Int64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 16, as: Int64.self)) }
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if hashAt(mid) < hash { lo = mid + 1 } else { hi = mid }
        }
        var out: [Int64] = []
        var i = lo
        while i < count && hashAt(i) == hash {
            out.append(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 16 + 8, as: Int64.self)))
            i += 1
        }
        return out
    }

    static func findStatement(_ db: Database) throws -> RawStatement {
        try RawStatement(db, "SELECT entries FROM event_ids WHERE lo <= ? ORDER BY lo DESC LIMIT 1")
    }

    /// Merges `new` (any order) into the ranges, splitting a range that grows past
    /// `maxEntries` (never between two pairs of the same hash).
    static func merge(_ new: [Entry], maxEntries: Int = maxEntries, in db: Database) throws {
        var new = new
        try merge(sorting: &new, maxEntries: maxEntries, in: db)
    }

    /// `merge`, sorting `added` in place (no copy of a large input's pairs).
    static func merge(sorting added: inout [Entry], maxEntries: Int = maxEntries, in db: Database) throws {
        guard !added.isEmpty else { return }
        added.sort()
        var los = try Int64.fetchAll(db, sql: "SELECT lo FROM event_ids ORDER BY lo")
        if los.first != Int64.min {
            // The first range starts at the lowest hash there is.
            if let first = los.first {
                try db.execute(sql: "UPDATE event_ids SET lo = ? WHERE lo = ?", arguments: [Int64.min, first])
                los[0] = Int64.min
            } else {
                try db.execute(sql: "INSERT INTO event_ids (lo, entries) VALUES (?, zeroblob(0))", arguments: [Int64.min])
                los = [Int64.min]
            }
        }
        let read = try RawStatement(db, "SELECT entries FROM event_ids WHERE lo = ?")
        let update = try RawStatement(db, "UPDATE event_ids SET entries = ? WHERE lo = ?")
        let insert = try RawStatement(db, "INSERT INTO event_ids (lo, entries) VALUES (?, ?)")
        var next = 0
        var merged: [Entry] = []
        for (r, lo) in los.enumerated() {
            guard next < added.count else { break }
            let end: Int
            if r + 1 < los.count {
                let upper = los[r + 1]
                var e = next
                while e < added.count && added[e].hash < upper { e += 1 }
                end = e
            } else {
                end = added.count
            }
            guard end > next else { continue }
            merged.removeAll(keepingCapacity: true)
            read.int(1, lo)
            if try read.step("reading event ids") {
                let n = Int(sqlite3_column_bytes(read.handle, 0))
                if n > 0, let p = sqlite3_column_blob(read.handle, 0) {
                    decode(UnsafeRawBufferPointer(start: p, count: n), into: &merged)
                }
            }
            read.reset()
            merged.append(contentsOf: added[next..<end])
            merged.sort()
            next = end
            // Pieces of about half the limit, so that a split range has room to grow.
            var pieces: [Range<Int>] = []
            if merged.count <= maxEntries {
                pieces = [0..<merged.count]
            } else {
                let target = max(1, maxEntries / 2)
                var start = 0
                while start < merged.count {
                    var cut = min(start + target, merged.count)
                    while cut < merged.count && merged[cut].hash == merged[cut - 1].hash { cut += 1 }
                    pieces.append(start..<cut)
                    start = cut
                }
            }
            for (i, piece) in pieces.enumerated() {
                let bytes = encode(merged[piece])
                if i == 0 {
                    bytes.withUnsafeBufferPointer { update.blob(1, $0) }
                    update.int(2, lo)
                    try update.step("writing event ids")
                    update.reset()
                } else {
                    insert.int(1, merged[piece.lowerBound].hash)
                    bytes.withUnsafeBufferPointer { insert.blob(2, $0) }
                    try insert.step("writing event ids")
                    insert.reset()
                }
            }
        }
    }

    /// Every stored pair, range by range (in hash order).
    static func forEachHash(in db: Database, _ body: (Int64) -> Void) throws {
        let statement = try RawStatement(db, "SELECT entries FROM event_ids ORDER BY lo")
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
    /// its true hash is computed again from the stored line.
    static func build(in db: Database) throws {
        try createTable(db)
        let reader = try StoredLineReader(db)
        var batch: [Entry] = []
        var previous: Int64?
        let rows = try Row.fetchCursor(db, sql: "SELECT id_hash, seq, user, flow, body FROM events ORDER BY id_hash")
        while let row = try rows.next() {
            let slot: Int64 = row[0]
            let seq: Int64 = row[1]
            var hash = slot
            if let previous, previous &+ 1 == slot {
                let body: Data = row[4]
                let user: Int64 = row[2]
                let flow: Int64 = row[3]
                let line = try body.withUnsafeBytes { try reader.line(user: user, flow: flow, body: $0, seq: seq) }
                hash = try line.withUnsafeBufferPointer { b -> Int64 in
                    var decoder = EventDecoder()
                    guard case .success(let env) = decoder.envelope(b) else {
                        throw StoreError(doing: "indexing the event ids of the log", reason: "stored event \(seq) is not a valid line")
                    }
                    let r = env.eventID
                    if r.inScratch {
                        return decoder.scratch[Int(r.start)..<Int(r.end)].withUnsafeBufferPointer { StoredLine.idHash($0) }
                    }
                    return StoredLine.idHash(UnsafeBufferPointer(rebasing: b[Int(r.start)..<Int(r.end)]))
                }
            }
            previous = slot
            batch.append(Entry(hash: hash, seq: seq))
            if batch.count >= 1 << 20 {
                try merge(sorting: &batch, in: db)
                batch.removeAll(keepingCapacity: true)
            }
        }
        try merge(sorting: &batch, in: db)
        try db.execute(sql: "DROP INDEX events_by_id_hash")
    }
}

/// A Bloom filter over 64-bit id hashes (4 probes from one mixed hash).
struct IDFilter {
    private var bits: [UInt64]
    private let nbits: UInt64
    private(set) var count = 0

    /// Sized for `capacity` hashes at 12 bits each (a false positive in about 150).
    init(capacity: Int) {
        let words = max(1 << 12, (capacity * 12 + 63) / 64)
        bits = [UInt64](repeating: 0, count: words)
        nbits = UInt64(words * 64)
    }

    /// How many hashes it was sized for.
    var capacity: Int { Int(nbits) / 12 }

    @inline(__always)
    private static func mix(_ h: Int64) -> UInt64 {
        // splitmix64's finalizer: FNV-1a's low bits are not spread enough for a filter.
        var z = UInt64(bitPattern: h) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func insert(_ h: Int64) {
        let z = Self.mix(h)
        let a = z, b = (z >> 32) | (z << 32)
        bits.withUnsafeMutableBufferPointer { p in
            for i in 0..<4 {
                let bit = (a &+ UInt64(i) &* b).multipliedFullWidth(by: nbits).high
                p[Int(bit >> 6)] |= 1 << (bit & 63)
            }
        }
        count += 1
    }

    func mayContain(_ h: Int64) -> Bool {
        let z = Self.mix(h)
        let a = z, b = (z >> 32) | (z << 32)
        return bits.withUnsafeBufferPointer { p in
            for i in 0..<4 {
                let bit = (a &+ UInt64(i) &* b).multipliedFullWidth(by: nbits).high
                if p[Int(bit >> 6)] & (1 << (bit & 63)) == 0 { return false }
            }
            return true
        }
    }

    /// A filter of every hash in the store, with room for `more`.
    static func load(more: Int, in db: Database) throws -> IDFilter {
        let stored = try Int.fetchOne(db, sql: "SELECT coalesce(sum(length(entries)), 0) / 16 FROM event_ids") ?? 0
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
