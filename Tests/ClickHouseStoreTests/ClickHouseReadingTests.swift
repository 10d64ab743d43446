import XCTest
import FunnelModel
import EventLog
import EventStore
import TestSupport
@testable import ClickHouseStore

/// The store's reads against the SQLite store's on the same log: a SQLite store ingests the
/// sample data, its rows are copied into ClickHouse table by table (one attempt per input,
/// as an ingest writes them), and every read must give the same answer, on one server and on
/// two shards. Rows of an attempt the ledger lacks (a killed ingest) must not be seen.
final class ClickHouseReadingTests: XCTestCase {
    static let sampleData = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("sample-data")

    func sqliteStore() throws -> EventStore {
        let store = try EventStore(path: Scratch.directory("reading").appendingPathComponent("s.sqlite").path)
        let paths = ["glp1", "baby-basics", "edge", "bad"].map { Self.sampleData.appendingPathComponent($0).path }
        _ = try Ingestor(store: store, options: IngestOptions(now: { Timestamp(micros: 1_000) })).ingest(try InputSource.discover(paths))
        return store
    }

    func testEveryReadMatchesSQLiteOnOneServerAndOnTwoShards() throws {
        if let reason = ClickHouseServers.unavailable {
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(reason) }
            throw XCTSkip(reason)
        }
        let servers = try ClickHouseServers.shared()
        let sqlite = try sqliteStore()
        for address in [servers.single(ClickHouseServers.database("read")), servers.cluster(ClickHouseServers.database("read"))] {
            let store = try ClickHouseStore(location: try ClickHouseLocation(address))
            try copy(sqlite, into: store)
            try assertSameReads(sqlite, store, address)
        }
    }

    func assertSameReads(_ sqlite: EventStore, _ store: ClickHouseStore, _ address: String) throws {
        let stored = try sqlite.storedEvents()
        XCTAssertGreaterThan(stored.count, 10_000)
        XCTAssertEqual(try store.inputs(), try sqlite.inputs(), address)
        XCTAssertEqual(try store.quarantine(), try sqlite.quarantine(), address)
        XCTAssertGreaterThan(try store.quarantine().count, 40)
        XCTAssertEqual(try store.flows(), try sqlite.flows(), address)
        XCTAssertEqual(try store.eventCount(), stored.count, address)
        for bound in [nil, Timestamp(micros: 1_791_158_400_000_000), Timestamp(micros: 0)] as [Timestamp?] {
            XCTAssertEqual(try store.latestEventTime(notAfter: bound), try sqlite.latestEventTime(notAfter: bound), address)
        }

        // The whole log: the same groups (user and flow), each in fold order.
        func groups(_ log: any EventLogReading, flow: String?) throws -> [String: [RecordedEvent]] {
            var out: [String: [RecordedEvent]] = [:]
            var previous = ""
            try log.forEachEvent(flow: flow) { e in
                let key = e.event.userID + "\u{1}" + e.event.flow
                XCTAssertTrue(key == previous || out[key] == nil, "group \(key) split")
                previous = key
                out[key, default: []].append(e)
            }
            return out
        }
        for flow in [nil, "glp1"] as [String?] {
            let expected = try groups(sqlite, flow: flow)
            XCTAssertEqual(try groups(store, flow: flow), expected, address)
            // In hash buckets of users, as a log many times the memory is read.
            var bucketed: [String: [RecordedEvent]] = [:]
            try store.forEachEvent(flow: flow, bucketBytes: 300_000) { bucketed[$0.event.userID + "\u{1}" + $0.event.flow, default: []].append($0) }
            XCTAssertEqual(bucketed, expected, address)
            XCTAssertEqual(expected.values.reduce(0) { $0 + $1.count },
                           flow == nil ? stored.count : stored.filter { $0.recorded.event.flow == "glp1" }.count)
        }

        let users = Array(Set(stored.filter { $0.recorded.event.flow == "glp1" }.map(\.recorded.event.userID)).sorted().prefix(40))
        for user in users {
            XCTAssertEqual(try store.events(user: user, flow: nil), try sqlite.events(user: user, flow: nil), user)
            XCTAssertEqual(try store.events(user: user, flow: "glp1"), try sqlite.events(user: user, flow: "glp1"), user)
        }
        // 2026-10-05: some users' last `height` event is later, and left out.
        let bound = Timestamp(micros: 1_791_158_400_000_000)
        let last = try store.lastEvents(onStep: "height", flow: "glp1", users: users, notAfter: bound)
        XCTAssertEqual(last, try sqlite.lastEvents(onStep: "height", flow: "glp1", users: users, notAfter: bound))
        XCTAssertGreaterThan(last.count, 10)
        for query in ["u-00", "0012", "dup-user", "nobody-like-this"] {
            XCTAssertEqual(try store.userIDs(matching: query, limit: 5), try sqlite.userIDs(matching: query, limit: 5), query)
        }
        let ids = stored.map(\.recorded.event.id)
        let duplicates = try store.duplicates(ofEventIDs: ids)
        XCTAssertEqual(duplicates, try sqlite.duplicates(ofEventIDs: ids))
        XCTAssertGreaterThanOrEqual(duplicates.values.reduce(0) { $0 + $1.count }, 7)
        XCTAssertEqual(try store.conflicts(ofEventIDs: ids), try sqlite.conflicts(ofEventIDs: ids))

        // Export: every line in arrival order, and each selection as SQLite gives it.
        for selection in [EventSelection(), EventSelection(flow: "glp1"), EventSelection(user: users[3]),
                          EventSelection(since: Timestamp(micros: 1_790_985_600_000_000), until: bound)] {
            let expected = try lines(sqlite, selection)
            XCTAssertFalse(expected.isEmpty, "\(selection)")
            XCTAssertEqual(try lines(store, selection), expected, "\(selection)")
        }
        XCTAssertEqual(try lines(store, EventSelection()), stored.map(\.recorded.line))
    }

    func lines(_ log: ClickHouseStore, _ selection: EventSelection) throws -> [String] {
        var out: [String] = []
        XCTAssertEqual(try log.forEachLine(selection) { out.append(String(decoding: $0, as: UTF8.self)) }, out.count)
        return out
    }

    func lines(_ log: EventStore, _ selection: EventSelection) throws -> [String] {
        var out: [String] = []
        try log.forEachLine(selection) { out.append(String(decoding: $0, as: UTF8.self)) }
        return out
    }

    /// Copies the SQLite store's log into `store` as ingests would have written it, each input
    /// under an attempt of its own, then the rows of an attempt the ledger never got.
    func copy(_ sqlite: EventStore, into store: ClickHouseStore) throws {
        let inputs = try sqlite.inputs()
        let attempt = { (input: Int64) in UInt64(input) &* 0x9E37_79B9 }
        let pathIDs = Dictionary(inputs.map { ($0.path, $0.id) }, uniquingKeysWith: { a, _ in a })
        let stored = try sqlite.storedEvents()
        var events = RowBinaryWriter()
        var flows: [Int64: [String: (Int, Int64, Int64)]] = [:]
        func addEvent(_ s: StoredEvent, attempt: UInt64) {
            let e = s.recorded.event
            events.uint64(UInt64(s.recorded.seq))
            events.uint64(attempt)
            events.uint32(UInt32(s.inputID))
            events.uint32(UInt32(s.lineNumber))
            events.string(e.id)
            events.string(e.userID)
            events.string(e.flow)
            events.nullableString(e.step)
            events.string(e.name)
            events.int64(e.time.micros)
            events.string(s.recorded.line)
        }
        for s in stored {
            addEvent(s, attempt: attempt(s.inputID))
            let cur = flows[s.inputID]?[s.recorded.event.flow] ?? (0, .max, .min)
            flows[s.inputID, default: [:]][s.recorded.event.flow] = (cur.0 + 1, min(cur.1, s.recorded.event.time.micros),
                                                                       max(cur.2, s.recorded.event.time.micros))
        }
        // A killed ingest's rows: a copy of the first events under an attempt no ledger row names.
        for var s in stored.prefix(500) {
            s.recorded.seq += 10_000_000
            addEvent(s, attempt: 42)
        }
        let settings = store.isCluster ? ["insert_distributed_sync": "1"] : [:]
        let eventColumns = ["seq", "attempt", "input_id", "line_no", "event_id", "user_id", "flow", "step", "event", "ts_us", "line"]
        try store.coordinator.insert(into: "events", columns: eventColumns, rows: events.data, doing: "copying events", settings: settings)

        var quarantine = RowBinaryWriter()
        for q in try sqlite.quarantine() {
            let id = pathIDs[q.inputPath] ?? 0
            quarantine.uint64(attempt(id))
            quarantine.uint32(UInt32(id))
            quarantine.string(q.inputPath)
            quarantine.uint32(UInt32(q.line))
            quarantine.int64(q.byteOffset)
            quarantine.string(q.code.rawValue)
            quarantine.string(q.reason)
            quarantine.string(bytes: q.raw)
        }
        try store.coordinator.insert(into: "quarantine", columns: ["attempt", "input_id", "path", "line_no", "byte_offset", "reason_code", "reason", "raw"],
                                     rows: quarantine.data, doing: "copying the quarantine")
        let ids = stored.map(\.recorded.event.id)
        var duplicates = RowBinaryWriter()
        for (id, copies) in try sqlite.duplicates(ofEventIDs: ids) {
            for c in copies {
                let input = pathIDs[c.inputPath] ?? 0
                duplicates.string(id)
                duplicates.uint64(attempt(input))
                duplicates.uint32(UInt32(input))
                duplicates.uint32(UInt32(c.line))
                duplicates.int64(c.arrivedAt.micros)
            }
        }
        try store.coordinator.insert(into: "duplicates", columns: ["event_id", "attempt", "input_id", "line_no", "arrived_us"],
                                     rows: duplicates.data, doing: "copying duplicates")
        var conflicts = RowBinaryWriter()
        for (id, copies) in try sqlite.conflicts(ofEventIDs: ids) {
            for c in copies {
                let input = pathIDs[c.inputPath] ?? 0
                conflicts.string(id)
                conflicts.uint64(attempt(input))
                conflicts.uint32(UInt32(input))
                conflicts.uint32(UInt32(c.line))
                conflicts.int64(c.arrivedAt.micros)
                conflicts.string(c.text)
            }
        }
        try store.coordinator.insert(into: "conflicts", columns: ["event_id", "attempt", "input_id", "line_no", "arrived_us", "line"],
                                     rows: conflicts.data, doing: "copying conflicts")
        var perFlow = RowBinaryWriter()
        for (input, byFlow) in flows {
            for (flow, v) in byFlow {
                perFlow.uint64(attempt(input))
                perFlow.string(flow)
                perFlow.uint64(UInt64(v.0))
                perFlow.int64(v.1)
                perFlow.int64(v.2)
            }
        }
        // The abandoned attempt's flows row too: the ledger alone decides.
        perFlow.uint64(42)
        perFlow.string("zz-abandoned")
        perFlow.uint64(1)
        perFlow.int64(4_000_000_000_000_000)
        perFlow.int64(4_000_000_000_000_000)
        try store.coordinator.insert(into: "input_flows", columns: ["attempt", "flow", "events", "first_ts_us", "last_ts_us"],
                                     rows: perFlow.data, doing: "copying flows")
        var ledger = RowBinaryWriter()
        for i in inputs {
            ledger.uint32(UInt32(i.id))
            ledger.uint64(attempt(i.id))
            ledger.string(i.path)
            ledger.string(i.sha256)
            ledger.int64(i.size)
            for n in [i.lines, i.accepted, i.duplicates, i.conflicts, i.quarantined, i.unplanned] { ledger.uint64(UInt64(n)) }
            ledger.string(i.outcome.rawValue)
            ledger.nullableString(i.error)
            ledger.int64(i.startedAt.micros)
            ledger.int64(i.finishedAt.micros)
        }
        try store.coordinator.insert(into: "inputs", columns: ["id", "attempt", "path", "sha256", "size", "lines", "accepted", "duplicates",
                                                              "conflicts", "quarantined", "unplanned", "outcome", "error", "started_us", "finished_us"],
                                     rows: ledger.data, doing: "copying the ledger")
    }
}
