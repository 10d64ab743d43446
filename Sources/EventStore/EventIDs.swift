import FunnelModel
import LogFiles
import GRDB
import Foundation
import StoreCore
import LineParsing

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
    /// Runs of similar size merged at once: each tier of runs is `fanIn` times the one below.
    static let fanIn = 4
    /// More runs than this are merged whatever their sizes (each lookup reads a row a run).
    static let maxRuns = 12

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

    /// Finds the seqs stored under a hash: one row read per run, by its rowid, from a
    /// directory of every run's rows (their `lo`s) kept in memory.
    struct Finder {
        private let statement: RawStatement
        /// Per run, its rows' `lo` (ascending) and rowids.
        private let runs: [(lo: [Int64], id: [Int64])]

        init(_ db: Database) throws {
            statement = try RawStatement(db, "SELECT entries FROM event_ids WHERE id = ?")
            let rows = try RawStatement(db, "SELECT run, lo, id FROM event_ids ORDER BY run, lo")
            var runs: [(lo: [Int64], id: [Int64])] = []
            var current: Int64?
            try rows.forEachRow("reading the event ids' rows") {
                if rows.int64(0) != current {
                    current = rows.int64(0)
                    runs.append(([], []))
                }
                runs[runs.count - 1].lo.append(rows.int64(1))
                runs[runs.count - 1].id.append(rows.int64(2))
            }
            self.runs = runs
        }

        /// The seqs stored under `hash`, ascending (usually none; one for a stored event;
        /// more only when different ids share a hash).
        func seqs(of hash: Int64) throws -> [Int64] {
            var out: [Int64] = []
            for run in runs {
                // The last row whose `lo` is at most `hash`.
                let row = partitionPoint(run.lo.count) { run.lo[$0] <= hash } - 1
                guard row >= 0 else { continue }
                statement.int(1, run.id[row])
                defer { statement.reset() }
                guard try statement.step("looking up an event id") else { continue }
                let raw = statement.bytes(0)
                let count = raw.count / 16
                func hashAt(_ i: Int) -> Int64 { Int64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 16, as: Int64.self)) }
                var i = partitionPoint(count) { hashAt($0) < hash }
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

    /// Merges runs in tiers: the `fanIn` smallest into one while they are of similar size
    /// (the largest at most twice the smallest), or whatever their sizes while there are more
    /// than `maxRuns`. A pair is rewritten once a tier, about log4 of the runs added.
    static func compact(maxEntries: Int = maxEntries, in db: Database) throws {
        while true {
            let runs = try Row.fetchAll(db, sql: "SELECT run, pairs FROM event_id_runs ORDER BY pairs, run")
                .map { (run: $0[0] as Int64, pairs: $0[1] as Int) }
            let similar = runs.count >= fanIn && runs[fanIn - 1].pairs <= 2 * runs[0].pairs
            guard similar || runs.count > maxRuns else { return }
            try merge(runs.prefix(fanIn).map(\.run), maxEntries: maxEntries, in: db)
        }
    }

    /// Merges `merged` runs into a new one, in (hash, seq) order, and drops them.
    private static func merge(_ merged: [Int64], maxEntries: Int, in db: Database) throws {
        var readers = try merged.map { try RunReader(run: $0, in: db) }
        var writer = try RunWriter(run: try nextRun(in: db), maxEntries: maxEntries, in: db)
        while true {
            // The reader with the smallest next pair (few runs: a scan beats a heap).
            var best: (reader: Int, entry: Entry)?
            for r in readers.indices {
                guard let e = try readers[r].peek() else { continue }
                if best.map({ e < $0.entry }) ?? true { best = (r, e) }
            }
            guard let best else { break }
            try writer.append(best.entry)
            readers[best.reader].advance()
        }
        try writer.finish(in: db)
        for run in merged {
            try db.execute(sql: "DELETE FROM event_ids WHERE run = ?", arguments: [run])
            try db.execute(sql: "DELETE FROM event_id_runs WHERE run = ?", arguments: [run])
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
        let rows = try Row.fetchCursor(db, sql: "SELECT id_hash, seq, user, flow, body, ts_us, ts_offset FROM events ORDER BY id_hash, seq")
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
            let time = Timestamp(micros: row[5], offsetSeconds: Int32(truncatingIfNeeded: row[6] as Int64))
            let line = try reader.eventLine(try body.withUnsafeBytes { try reader.line(user: user, flow: flow, time: time, body: $0, seq: seq) }, seq: seq)
            guard let id = line.withUnsafeBufferPointer({ StoredLine.eventID(of: $0) }) else {
                throw StoreError(doing: "indexing the event ids of the log", reason: "stored event \(seq) is not a valid line", kind: .corrupt)
            }
            let hash = id.withUnsafeBufferPointer { EventIdentity.idHash($0) }
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
