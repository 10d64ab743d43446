import Foundation
import FunnelModel
import EventLog
@testable import EventStore
@testable import ClickHouseStore

/// What a ClickHouse store holds for a reader: the rows of committed attempts only, in the
/// shapes the SQLite store answers with, so that the two compare with `==`.
struct VisibleRows: Equatable {
    /// One stored event with where it came from.
    struct Event: Hashable {
        var seq: Int64
        var eventID: String
        var user: String
        var flow: String
        var step: String?
        var rawName: String
        var micros: Int64
        var line: String
        var inputID: Int64
        var lineNumber: Int
    }
    /// A flow's events and time span.
    struct Flow: Hashable {
        var events: Int
        var first: Int64
        var last: Int64
    }

    var events: [Event] = []
    var duplicates: [String: [DuplicateCopy]] = [:]
    var conflicts: [String: [ConflictCopy]] = [:]
    var quarantine: [QuarantineEntry] = []
    var inputs: [LedgerEntry] = []
    var flows: [String: Flow] = [:]

    /// The SQLite store's rows.
    init(sqlite store: EventStore) throws {
        events = try store.storedEvents().map { s in
            let e = s.recorded.event
            return Event(seq: s.recorded.seq, eventID: e.id, user: e.userID, flow: e.flow, step: e.step, rawName: e.rawName,
                         micros: e.time.micros, line: s.recorded.line, inputID: s.inputID, lineNumber: s.lineNumber)
        }
        let ids = events.map(\.eventID)
        duplicates = try store.duplicates(ofEventIDs: ids)
        conflicts = try store.conflicts(ofEventIDs: ids)
        quarantine = try store.quarantine()
        inputs = try store.inputs()
        for e in events {
            var f = flows[e.flow] ?? Flow(events: 0, first: .max, last: .min)
            f.events += 1
            f.first = min(f.first, e.micros)
            f.last = max(f.last, e.micros)
            flows[e.flow] = f
        }
    }

    /// The ClickHouse store's visible rows.
    init(clickhouse store: ClickHouseStore) throws {
        var attempts: [UInt64] = []
        var paths: [Int64: String] = [:]
        try Self.rows(store, "SELECT id, attempt, path, sha256, size, lines, accepted, duplicates, conflicts, quarantined, unplanned, "
                      + "outcome, error, started_us, finished_us FROM inputs ORDER BY id") { r in
            let id = Int64(try r.uint32())
            attempts.append(try r.uint64())
            let path = try r.string()
            paths[id] = path
            inputs.append(LedgerEntry(id: id, path: path, sha256: try r.string(), size: try r.int64(), lines: Int(try r.uint64()),
                                      accepted: Int(try r.uint64()), duplicates: Int(try r.uint64()), conflicts: Int(try r.uint64()),
                                      quarantined: Int(try r.uint64()), unplanned: Int(try r.uint64()),
                                      outcome: LedgerEntry.Outcome(rawValue: try r.string()) ?? .partial, error: try r.nullableString(),
                                      startedAt: Timestamp(micros: try r.int64()), finishedAt: Timestamp(micros: try r.int64())))
        }
        let visible = ClickHouseSQL.list(attempts)
        try Self.rows(store, "SELECT seq, event_id, user_id, flow, step, event, ts_us, line, input_id, line_no FROM events "
                      + "WHERE attempt IN \(visible) ORDER BY seq") { r in
            events.append(Event(seq: Int64(try r.uint64()), eventID: try r.string(), user: try r.string(), flow: try r.string(),
                                step: try r.nullableString(), rawName: try r.string(), micros: try r.int64(), line: try r.string(),
                                inputID: Int64(try r.uint32()), lineNumber: Int(try r.uint32())))
        }
        try Self.rows(store, "SELECT event_id, input_id, line_no, arrived_us FROM duplicates WHERE attempt IN \(visible) "
                      + "ORDER BY input_id, line_no") { r in
            let id = try r.string()
            let input = Int64(try r.uint32())
            duplicates[id, default: []].append(DuplicateCopy(eventID: id, inputPath: paths[input] ?? "?", line: Int(try r.uint32()),
                                                             arrivedAt: Timestamp(micros: try r.int64())))
        }
        try Self.rows(store, "SELECT event_id, input_id, line_no, arrived_us, line FROM conflicts WHERE attempt IN \(visible) "
                      + "ORDER BY input_id, line_no") { r in
            let id = try r.string()
            let input = Int64(try r.uint32())
            conflicts[id, default: []].append(ConflictCopy(eventID: id, inputPath: paths[input] ?? "?", line: Int(try r.uint32()),
                                                           arrivedAt: Timestamp(micros: try r.int64()), text: try r.string()))
        }
        try Self.rows(store, "SELECT path, line_no, byte_offset, reason_code, reason, raw FROM quarantine WHERE attempt IN \(visible) "
                      + "ORDER BY input_id, line_no") { r in
            quarantine.append(QuarantineEntry(inputPath: try r.string(), line: Int(try r.uint32()), byteOffset: try r.int64(),
                                              code: Rejection.Code(rawValue: try r.string()) ?? .notJSON, reason: try r.string(),
                                              raw: Array(try r.bytesOfString())))
        }
        try Self.rows(store, "SELECT flow, sum(events), min(first_ts_us), max(last_ts_us) FROM input_flows WHERE attempt IN \(visible) "
                      + "GROUP BY flow") { r in
            flows[try r.string()] = Flow(events: Int(try r.uint64()), first: try r.int64(), last: try r.int64())
        }
    }

    /// Runs `sql` on the coordinator and hands each row's reader to `row`.
    static func rows(_ store: ClickHouseStore, _ sql: String, _ row: (inout RowBinaryReader) throws -> Void) throws {
        try rows(on: store.coordinator, sql, row)
    }

    /// Runs `sql` on one server and hands each row's reader to `row`.
    static func rows(on client: ClickHouseClient, _ sql: String, _ row: (inout RowBinaryReader) throws -> Void) throws {
        var reader = RowBinaryReader(try client.read(sql + " FORMAT RowBinary", doing: "reading for a test"), doing: sql)
        while !reader.isAtEnd { try row(&reader) }
    }

    /// Rows in a table of each server, every attempt's (visible or not).
    static func count(_ table: String, on client: ClickHouseClient) throws -> Int {
        Int(String(decoding: try client.read("SELECT count() FROM \(table)", doing: "counting \(table)"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
