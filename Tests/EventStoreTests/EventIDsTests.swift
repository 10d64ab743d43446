import XCTest
import Foundation
import GRDB
import LogFiles
@testable import EventStore
import TestSupport
import StoreCore

/// The dedupe index: (hash, seq) pairs in hash ranges, and the filter in front of it.
final class EventIDsTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = Scratch.directory("eventids")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    /// Added in many rounds as runs of small rows, every pair is found again under its hash;
    /// runs of similar size are merged (few runs remain), rows never part the pairs of one
    /// hash, and each run's rows are sorted and within the limit.
    func testAddedPairsAreFoundAgainAcrossRunsAndMerges() throws {
        let store = try EventStore(path: dir.appendingPathComponent("s.sqlite").path)
        var rng = SystemRandomNumberGenerator()
        var all: [EventIDs.Entry] = []
        var seq: Int64 = 0
        try store.writer.write { db in
            for round in 0..<12 {
                var new: [EventIDs.Entry] = []
                // Rounds of different sizes: some runs merge, some stay.
                for _ in 0..<(round % 3 == 0 ? 900 : 150) {
                    seq += 1
                    new.append(EventIDs.Entry(hash: Int64(bitPattern: rng.next()), seq: seq))
                }
                // Hashes shared by several events (collisions), within and across rounds.
                for k in 0..<20 {
                    seq += 1
                    new.append(EventIDs.Entry(hash: Int64(k * 1_000_003) - 5_000_000, seq: seq))
                }
                new.append(EventIDs.Entry(hash: .min, seq: seq + 1))
                new.append(EventIDs.Entry(hash: .max, seq: seq + 2))
                seq += 2
                all += new
                new.shuffle()
                try EventIDs.add(new, maxEntries: 64, in: db)
                let finder = try EventIDs.Finder(db)
                XCTAssertEqual(try finder.seqs(of: .max).count, round + 1)
            }
            let finder = try EventIDs.Finder(db)
            var expected: [Int64: [Int64]] = [:]
            for e in all { expected[e.hash, default: []].append(e.seq) }
            for (hash, seqs) in expected {
                XCTAssertEqual(try finder.seqs(of: hash), seqs.sorted(), "hash \(hash)")
            }
            XCTAssertEqual(try finder.seqs(of: 12345), [])
            let runs = try Row.fetchAll(db, sql: "SELECT run, pairs FROM event_id_runs")
            XCTAssertGreaterThan(runs.count, 1)
            XCTAssertLessThanOrEqual(runs.count, 4)
            XCTAssertEqual(runs.map { $0["pairs"] as Int }.reduce(0, +), all.count)
            for run in runs {
                let rows = try Row.fetchAll(db, sql: "SELECT lo, entries FROM event_ids WHERE run = ? ORDER BY lo",
                                            arguments: [run["run"] as Int64])
                XCTAssertEqual(rows.first?["lo"] as Int64?, Int64.min)
                var previousLast: Int64?
                var pairs = 0
                for row in rows {
                    let data: Data = row["entries"]
                    var entries: [EventIDs.Entry] = []
                    data.withUnsafeBytes { EventIDs.decode($0, into: &entries) }
                    XCTAssertEqual(entries, entries.sorted())
                    XCTAssertFalse(entries.isEmpty)
                    // Over the limit only to keep one hash's pairs together.
                    if entries.count > 64 { XCTAssertEqual(entries[63].hash, entries[64].hash) }
                    if let first = entries.first {
                        XCTAssertGreaterThanOrEqual(first.hash, row["lo"] as Int64)
                        if let previousLast { XCTAssertLessThan(previousLast, first.hash) }
                    }
                    previousLast = entries.last?.hash
                    pairs += entries.count
                }
                XCTAssertEqual(pairs, run["pairs"] as Int)
            }
        }
    }

    /// Runs merge in tiers of four: four runs of one size become one run four times as
    /// large, a smaller run waits beside larger ones, and every pair is still found.
    func testRunsOfSimilarSizeMergeFourAtATime() throws {
        let store = try EventStore(path: dir.appendingPathComponent("t.sqlite").path)
        var seq: Int64 = 0
        try store.writer.write { db in
            func sizes() throws -> [Int] {
                try Int.fetchAll(db, sql: "SELECT pairs FROM event_id_runs ORDER BY pairs DESC")
            }
            for round in 1...17 {
                var new: [EventIDs.Entry] = []
                for _ in 0..<100 {
                    seq += 1
                    new.append(EventIDs.Entry(hash: seq &* 0x5DEE_CE66D, seq: seq))
                }
                try EventIDs.add(new, maxEntries: 64, in: db)
                switch round {
                case 3: XCTAssertEqual(try sizes(), [100, 100, 100])
                case 4: XCTAssertEqual(try sizes(), [400])
                case 5: XCTAssertEqual(try sizes(), [400, 100])
                case 15: XCTAssertEqual(try sizes(), [400, 400, 400, 100, 100, 100])
                case 16: XCTAssertEqual(try sizes(), [1_600])
                case 17: XCTAssertEqual(try sizes(), [1_600, 100])
                default: break
                }
            }
            let finder = try EventIDs.Finder(db)
            for s in stride(from: Int64(1), through: seq, by: 37) {
                XCTAssertEqual(try finder.seqs(of: s &* 0x5DEE_CE66D), [s])
            }
        }
    }

    /// An input's new pairs, found again under their hash in its bucket (across its blocks), and
    /// handed over in (hash, seq) order: signed hashes negative first, the pairs of one hash by
    /// seq though the hash came back later in arrival. One bucket (hundreds of blocks), a few,
    /// and the default; buckets sorted whole (0, 1 and 3 bits), by groups of their next bits
    /// (4 and 5 bits: 150 to 320 pairs a bucket) and by insertion alone (the default).
    func testNewIDsAreFoundAndLeaveInHashThenSeqOrder() {
        var rng = SystemRandomNumberGenerator()
        for bits in [0, 1, 3, 4, 5, Tuning.newIDsBucketBits] {
            var ids = NewIDs(bucketBits: bits)
            var entries: [EventIDs.Entry] = []
            var seq: Int64 = 0
            func add(_ h: Int64) {
                seq += 1
                let e = EventIDs.Entry(hash: h, seq: seq)
                entries.append(e)
                ids.append(e)
            }
            for i in 0..<5_000 {
                let h = Int64(bitPattern: rng.next())
                add(h)
                // Every 97th hash again, some lines later (another chunk, mostly).
                if i % 97 == 0 { add(h) }
                if i % 101 == 0, let earlier = entries.randomElement() { add(earlier.hash) }
            }
            add(.min)
            add(.max)
            add(-1)
            add(0)
            XCTAssertEqual(ids.count, entries.count)
            var expected: [Int64: [Int64]] = [:]
            for e in entries { expected[e.hash, default: []].append(e.seq) }
            for (hash, seqs) in expected { XCTAssertEqual(ids.seqs(of: hash), seqs, "hash \(hash), \(bits) bits") }
            XCTAssertEqual(ids.seqs(of: 12_345), [])
            // A copy is a value of its own: what it adds or drains leaves the original as is.
            var copy = ids
            copy.append(EventIDs.Entry(hash: 12_345, seq: 1_000_000))
            XCTAssertEqual(copy.seqs(of: 12_345), [1_000_000])
            XCTAssertEqual(ids.seqs(of: 12_345), [])
            copy.drain { _ in }
            XCTAssertEqual(copy.count, 0)
            XCTAssertEqual(ids.count, entries.count)
            var drained: [EventIDs.Entry] = []
            ids.drain { drained.append($0) }
            XCTAssertEqual(drained, entries.sorted(), "\(bits) bits")
            XCTAssertEqual(drained.first?.hash, .min)
            XCTAssertEqual(drained.last?.hash, .max)
            XCTAssertEqual(ids.count, 0)
            XCTAssertEqual(ids.seqs(of: .max), [])
            // Emptied, the buckets take new pairs again.
            let again = [EventIDs.Entry(hash: 5, seq: 9_000), EventIDs.Entry(hash: -5, seq: 9_001)]
            for e in again { ids.append(e) }
            XCTAssertEqual(ids.seqs(of: 5), [9_000])
            drained = []
            ids.drain { drained.append($0) }
            XCTAssertEqual(drained, again.sorted(), "\(bits) bits, again")
        }
    }

    func testTheFilterHoldsWhatWasAddedAndRarelyMore() {
        var filter = IDFilter(capacity: 50_000)
        XCTAssertGreaterThanOrEqual(filter.capacity, 50_000)
        let falsePositives = fill(&filter, with: 50_000, thenTest: 100_000)
        XCTAssertLessThan(falsePositives, 1_500, "\(falsePositives) of 100000")
    }

    /// Adds `n` random hashes to `filter`, checks that it counts and holds every one, and
    /// returns how many of `others` random hashes more it says it may hold.
    private func fill(_ filter: inout IDFilter, with n: Int, thenTest others: Int,
                      file: StaticString = #filePath, line: UInt = #line) -> Int {
        var rng = SystemRandomNumberGenerator()
        let added = (0..<n).map { _ in Int64(bitPattern: rng.next()) }
        for h in added { filter.insert(h) }
        XCTAssertEqual(filter.count, n, file: file, line: line)
        let f = filter
        XCTAssertTrue(added.allSatisfy { f.mayContain($0) }, file: file, line: line)
        return (0..<others).filter { _ in f.mayContain(Int64(bitPattern: rng.next())) }.count
    }

    /// A filter is never made larger than its limit: at it, it takes more hashes than it was
    /// sized for, still holds every one (only its false positives grow), and has room for
    /// any number more; one below the limit, or above it (a smaller limit now), has not.
    func testAFilterAtItsLimitHoldsEveryHashAddedAndIsNotOutgrown() {
        var filter = IDFilter(capacity: 1_000_000, maxBlocks: 512)
        XCTAssertEqual(filter.byteCount, 32_768)
        XCTAssertEqual(filter.capacity, 21_845)
        let falsePositives = fill(&filter, with: 60_000, thenTest: 20_000)
        // 5.5 bits a hash: about a tenth look held (under 1 % at 12 bits).
        XCTAssertGreaterThan(falsePositives, 600, "\(falsePositives) of 20000")
        XCTAssertLessThan(falsePositives, 6_000, "\(falsePositives) of 20000")
        XCTAssertTrue(filter.hasRoom(for: 10_000_000, maxBlocks: 512))
        let larger = IDFilter(capacity: 50_000, maxBlocks: 4096)
        XCTAssertEqual(larger.byteCount, 1_172 * 64)
        XCTAssertTrue(larger.hasRoom(for: 10, maxBlocks: 4096))
        XCTAssertFalse(larger.hasRoom(for: 10, maxBlocks: 1024), "above a smaller limit")
        XCTAssertFalse(filter.hasRoom(for: 10_000_000, maxBlocks: 4096), "could grow")
        let small = IDFilter(capacity: 1_000, maxBlocks: 4096)
        XCTAssertEqual(small.byteCount, 32_768)
        XCTAssertTrue(small.hasRoom(for: 20_000, maxBlocks: 4096))
        XCTAssertFalse(small.hasRoom(for: 30_000, maxBlocks: 4096))
    }

    /// A saved filter is written and read back a chunk at a time: the loaded one holds what the
    /// saved one held, bit for bit, plus the events stored after it; a limit below its size
    /// rejects it (it is built again from the index, at the limit).
    func testASavedFilterLoadsBackBitForBit() throws {
        let store = try EventStore(path: dir.appendingPathComponent("f.sqlite").path)
        var rng = SystemRandomNumberGenerator()
        // 3 MiB: more than one chunk of 1 MiB, and a part chunk at the end.
        var filter = IDFilter(capacity: 2_100_000)
        XCTAssertGreaterThan(filter.byteCount, 3 << 20)
        let added = (0..<200_000).map { _ in Int64(bitPattern: rng.next()) }
        for h in added { filter.insert(h) }
        let blocks = filter.byteCount / 64
        try store.writer.write { db in try filter.save(through: 0, in: db) }
        let loaded = try store.writer.read { db in try IDFilter.loadSaved(more: 1_000, maxBlocks: blocks, in: db) }
        let back = try XCTUnwrap(loaded)
        XCTAssertEqual(back.byteCount, filter.byteCount)
        XCTAssertEqual(back.count, filter.count)
        XCTAssertEqual(back.savedThrough, 0)
        XCTAssertTrue(added.allSatisfy { back.mayContain($0) })
        let others = (0..<50_000).map { _ in Int64(bitPattern: rng.next()) }
        XCTAssertEqual(others.map { back.mayContain($0) }, others.map { filter.mayContain($0) })
        XCTAssertNil(try store.writer.read { db in try IDFilter.loadSaved(more: 1_000, maxBlocks: blocks / 2, in: db) })
        let rebuilt = try store.writer.read { db in try IDFilter.load(more: 1_000, maxBlocks: blocks / 2, in: db) }
        XCTAssertLessThanOrEqual(rebuilt.byteCount, blocks / 2 * 64)
        XCTAssertNil(rebuilt.savedThrough)
    }

    /// Ingest with a filter far smaller than the store needs (32 KiB for 30,000 ids): many new
    /// ids look held and are looked up, and every copy is still caught, none let in twice.
    func testAnIngestWithItsFilterAtTheLimitCatchesEveryCopy() throws {
        let path = dir.appendingPathComponent("s.sqlite").path
        func line(_ i: Int) -> String {
            #"{"event_id":"e-\#(i)","event":"onboarding.step_viewed","user_id":"u-\#(i % 23)","ts":"2026-10-01T10:\#(String(format: "%02d", i % 60)):00Z","flow":"glp1","step":"signIn"}"#
        }
        func file(_ name: String, _ ids: [Int]) throws -> InputSource {
            let url = dir.appendingPathComponent(name)
            try (ids.map(line).joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
            return InputSource(path: url.path)
        }
        let options = IngestOptions(batchLines: 512)
        var limits = Ingestor.Limits()
        limits.idFilterBytes = 32 << 10
        // 20,000 events with 2,000 copies of earlier ones among them (some in the same batch).
        let first = Array(0..<20_000) + (0..<2_000).map { $0 * 9 }
        let a = try Ingestor(store: try EventStore(path: path), options: options, limits: limits)
            .ingest([try file("a.ndjson", first.sorted())])
        XCTAssertEqual([a.accepted, a.duplicates, a.conflicts], [20_000, 2_000, 0])
        // Another process: 10,000 new events and copies of 5,000 stored ones.
        let b = try Ingestor(store: try EventStore(path: path), options: options, limits: limits)
            .ingest([try file("b.ndjson", Array(15_000..<30_000).reversed())])
        XCTAssertEqual([b.accepted, b.duplicates, b.conflicts], [10_000, 5_000, 0])
        try EventStore(path: path).writer.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM events"), 30_000)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT sum(pairs) FROM event_id_runs"), 30_000)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT length(words) FROM id_filter"), 32 << 10)
        }
    }

    /// One ingest of several inputs hands each input's emptied new-id and run buffers to the
    /// next: it writes the index pair for pair and the users' runs as one ingest a file does,
    /// and still finds the copies an input makes of the one before and of itself.
    func testInputsReusingTheIDAndRunBuffersWriteAsEachOnItsOwn() throws {
        func line(_ i: Int) -> String {
            #"{"event_id":"r-\#(i)","event":"onboarding.step_viewed","user_id":"u-\#(i % 31)","ts":"2026-10-01T11:\#(String(format: "%02d", i % 60)):00Z","flow":"glp1","step":"signIn"}"#
        }
        // Each file repeats 300 ids of the file before and 200 of its own.
        var files: [InputSource] = []
        for f in 0..<4 {
            let own = Array(f * 5_000..<(f + 1) * 5_000)
            let ids = own + (f > 0 ? Array((f - 1) * 5_000..<(f - 1) * 5_000 + 300) : []) + own.prefix(200)
            let url = dir.appendingPathComponent("r\(f).ndjson")
            try (ids.map(line).joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
            files.append(InputSource(path: url.path))
        }
        let options = IngestOptions(batchLines: 512)
        let together = try EventStore(path: dir.appendingPathComponent("together.sqlite").path)
        let summary = try Ingestor(store: together, options: options).ingest(files)
        XCTAssertEqual([summary.accepted, summary.duplicates, summary.conflicts], [20_000, 1_700, 0])
        let apart = try EventStore(path: dir.appendingPathComponent("apart.sqlite").path)
        for file in files { _ = try Ingestor(store: apart, options: options).ingest([file]) }
        func index(_ store: EventStore) throws -> [String] {
            try store.writer.read { db in try String.fetchAll(db, sql: "SELECT run || ':' || lo || ':' || hex(entries) FROM event_ids ORDER BY run, lo") }
        }
        XCTAssertEqual(try index(together).count, try index(apart).count)
        XCTAssertEqual(try index(together), try index(apart))
        // The runs' buffers go on too: every user's runs are the same.
        func runs(_ store: EventStore) throws -> [String] {
            try store.writer.read { db in
                try String.fetchAll(db, sql: """
                    SELECT user || ':' || flow || ':' || first_seq || ':' || events || ':' || last_ts_us || ':' || hex(seqs)
                    FROM user_runs ORDER BY user, flow, first_seq
                    """)
            }
        }
        XCTAssertEqual(try runs(together).count, 31 * 4)
        XCTAssertEqual(try runs(together), try runs(apart))
        try together.writer.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT sum(pairs) FROM event_id_runs"), 20_000)
        }
    }

    /// Ingest tests a batch's hashes in one call (blocks read first, then tested, then set): it
    /// answers for each hash as the filter was before the batch, and then holds them all.
    func testABatchIsTestedAgainstTheFilterBeforeIt() {
        var rng = SystemRandomNumberGenerator()
        var one = IDFilter(capacity: 20_000)
        var batched = one
        let stored = (0..<10_000).map { _ in Int64(bitPattern: rng.next()) }
        for h in stored {
            one.insert(h)
            batched.insert(h)
        }
        // New hashes, copies of stored ones and copies of earlier hashes of the batch (the
        // driver hands the filter only lines with an event, so every slot holds a hash).
        var hashes: [Int64] = []
        for i in 0..<4_096 {
            switch i % 7 {
            case 0, 5: hashes.append(stored[i])
            case 3: hashes.append(hashes[i - 2])
            default: hashes.append(Int64(bitPattern: rng.next()))
            }
        }
        // Each hash is tested against the filter as it was before the batch, then added.
        let expected = hashes.map { one.mayContain($0) }
        for h in hashes { _ = one.testAndInsert(h) }
        var maybe = [true]
        batched.testAndInsert(hashes, into: &maybe)
        XCTAssertEqual(maybe, expected)
        XCTAssertEqual(batched.count, one.count)
        // Every stored copy is caught; a copy of an earlier hash of the batch gets that hash's
        // answer (the caller finds it among the batch's lines, not in the store).
        for i in hashes.indices where i % 7 == 0 || i % 7 == 5 {
            XCTAssertTrue(maybe[i], "line \(i)")
        }
        for i in hashes.indices where i % 7 == 3 {
            XCTAssertEqual(maybe[i], maybe[i - 2], "line \(i)")
        }
        XCTAssertLessThan(hashes.indices.filter { $0 % 7 == 1 && maybe[$0] }.count, 20)
        XCTAssertTrue(hashes.allSatisfy { batched.mayContain($0) })
    }

    /// An ingest saves its filter with the last seq it holds; the next one (another process)
    /// loads it and adds the events stored after it from the log, so copies of those are
    /// caught too. A small ingest leaves the saved copy as it is.
    func testTheSavedFilterAndTheEventsAfterItCatchEveryCopy() throws {
        let path = dir.appendingPathComponent("s.sqlite").path
        func file(_ name: String, _ range: Range<Int>) throws -> InputSource {
            let url = dir.appendingPathComponent(name)
            let lines = range.map { i in
                #"{"event_id":"e-\#(i)","event":"onboarding.step_viewed","user_id":"u-\#(i % 23)","ts":"2026-10-01T10:\#(String(format: "%02d", i % 60)):00Z","flow":"glp1","step":"signIn"}"#
            }
            try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
            return InputSource(path: url.path)
        }
        func saved() throws -> Int64? {
            try EventStore(path: path).writer.read { db in try Int64.fetchOne(db, sql: "SELECT through_seq FROM id_filter") }
        }
        _ = try Ingestor(store: try EventStore(path: path)).ingest([try file("a.ndjson", 0..<2000)])
        XCTAssertEqual(try saved(), 2000)
        // 100 new events, fewer than an eighth of the filter: the saved copy stays.
        let b = try Ingestor(store: try EventStore(path: path)).ingest([try file("b.ndjson", 2000..<2100)])
        XCTAssertEqual(b.accepted, 100)
        XCTAssertEqual(try saved(), 2000)
        // Copies of events from both files, and 50 new ones.
        let c = try Ingestor(store: try EventStore(path: path)).ingest([try file("c.ndjson", 1950..<2150)])
        XCTAssertEqual([c.accepted, c.duplicates, c.conflicts], [50, 150, 0])
    }

    /// An input longer than the ids it may hold writes them to the index as it goes: copies
    /// of events from before and after each write, within the input and in a later one, are
    /// duplicates, and the index ends up with every event's pair once.
    func testALongInputWritesItsIdsAsItGoesAndStillCatchesEveryCopy() throws {
        let path = dir.appendingPathComponent("s.sqlite").path
        func line(_ i: Int) -> String {
            #"{"event_id":"e-\#(i)","event":"onboarding.step_viewed","user_id":"u-\#(i % 23)","ts":"2026-10-01T10:\#(String(format: "%02d", i % 60)):00Z","flow":"glp1","step":"signIn"}"#
        }
        // 1000 events, then copies of 0..<300 (written to the index by then) and of 900..<1000
        // (the last of them still held), then 200 new ones.
        let url = dir.appendingPathComponent("a.ndjson")
        let lines = (0..<1000).map(line) + (0..<300).map(line) + (900..<1000).map(line) + (1000..<1200).map(line)
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        var limits = Ingestor.Limits()
        limits.heldIDs = 100
        let a = try Ingestor(store: try EventStore(path: path), options: IngestOptions(batchLines: 64), limits: limits)
            .ingest([InputSource(path: url.path)])
        XCTAssertEqual([a.accepted, a.duplicates, a.conflicts], [1200, 400, 0])
        try EventStore(path: path).writer.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT sum(pairs) FROM event_id_runs"), 1200)
            XCTAssertLessThanOrEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM event_id_runs") ?? 99, EventIDs.maxRuns)
        }
        // Copies of all of it in another file (another sha256), with one new event.
        let again = dir.appendingPathComponent("b.ndjson")
        try (((0..<1200).reversed().map(line) + [line(5000)]).joined(separator: "\n") + "\n").write(to: again, atomically: true, encoding: .utf8)
        let b = try Ingestor(store: try EventStore(path: path), options: IngestOptions(batchLines: 64), limits: limits)
            .ingest([InputSource(path: again.path)])
        XCTAssertEqual([b.accepted, b.duplicates, b.conflicts], [1, 1200, 0])
    }

    /// A store whose dedupe was a unique index on events(id_hash), with an event moved to
    /// the next slot by a collision, gets its index built from the log: copies of every stored
    /// event, the moved one included, are still duplicates.
    func testMigrationBuildsTheIndexFromTheLog() throws {
        let path = dir.appendingPathComponent("old.sqlite").path
        let first = dir.appendingPathComponent("a.ndjson")
        var lines: [String] = []
        for i in 0..<300 {
            lines.append(#"{"event_id":"e-\#(i)","event":"onboarding.step_viewed","user_id":"u-\#(i % 17)","ts":"2026-10-01T10:\#(String(format: "%02d", i % 60)):00Z","flow":"glp1","step":"signIn"}"#)
        }
        try (lines.joined(separator: "\n") + "\n").write(to: first, atomically: true, encoding: .utf8)
        do {
            let st = try EventStore(path: path)
            _ = try Ingestor(store: st).ingest([InputSource(path: first.path)])
            // Back to the v2 layout: slots in id_hash, a unique index, no event_ids. The event
            // of line 2 sits one slot after line 1's, as if its hash had been taken.
            try st.writer.write { db in
                try LegacyLog.downgrade(db)
                let firstSlot = try Int64.fetchOne(db, sql: "SELECT id_hash FROM events WHERE line_no = 1") ?? 0
                try db.execute(sql: "UPDATE events SET id_hash = ? WHERE line_no = 2", arguments: [firstSlot &+ 1])
                try db.execute(sql: "DROP TABLE event_ids")
                try db.execute(sql: "DROP TABLE event_id_runs")
                try db.execute(sql: "CREATE UNIQUE INDEX events_by_id_hash ON events(id_hash)")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v3:%'")
            }
        }
        let st = try EventStore(path: path)
        try st.writer.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'events_by_id_hash'"), 0)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT sum(pairs) FROM event_id_runs"), 300)
        }
        // The same lines again, in another file (another sha256), and one new event.
        let again = dir.appendingPathComponent("b.ndjson")
        let extra = #"{"event_id":"e-new","event":"onboarding.step_viewed","user_id":"u-1","ts":"2026-10-01T11:00:00Z","flow":"glp1","step":"signIn"}"#
        try (lines.reversed().joined(separator: "\n") + "\n" + extra + "\n").write(to: again, atomically: true, encoding: .utf8)
        let s = try Ingestor(store: st).ingest([InputSource(path: again.path)])
        XCTAssertEqual([s.accepted, s.duplicates, s.conflicts], [1, 300, 0])
    }
}
