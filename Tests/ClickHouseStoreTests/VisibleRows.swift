import Foundation
import FunnelModel
import LogFiles
import StoreCore
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

    /// The ClickHouse store's visible rows: the events as stored, the rest through its reader.
    init(clickhouse store: ClickHouseStore) throws {
        let snapshot = try store.snapshot()
        let shapes = try ClickHouseShapes.load(store)
        try store.rows(store.coordinator, "SELECT seq, event_id, user_id, flow, step, event, ts_us, input_id, line_no, "
                       + "\(ClickHouseShapes.lineColumns) FROM events WHERE \(snapshot.clause) ORDER BY seq", doing: "reading the events") { r in
            let seq = Int64(try r.uint64())
            let eventID = try r.string(), user = try r.string(), flow = try r.string(), step = try r.nullableString()
            let rawName = try r.string(), micros = try r.int64(), input = Int64(try r.uint32()), lineNumber = Int(try r.uint32())
            let line = String(decoding: try shapes.line(from: &r, seq: seq), as: UTF8.self)
            events.append(Event(seq: seq, eventID: eventID, user: user, flow: flow, step: step, rawName: rawName, micros: micros,
                                line: line, inputID: input, lineNumber: lineNumber))
        }
        let ids = events.map(\.eventID)
        duplicates = try store.duplicates(ofEventIDs: ids)
        conflicts = try store.conflicts(ofEventIDs: ids)
        quarantine = try store.quarantine()
        inputs = try store.inputs()
        try store.rows(store.coordinator, "SELECT flow, sum(events), min(first_ts_us), max(last_ts_us) FROM input_flows "
                       + "WHERE \(snapshot.clause) GROUP BY flow", doing: "reading the flows") { r in
            flows[try r.string()] = Flow(events: Int(try r.uint64()), first: try r.int64(), last: try r.int64())
        }
    }

    /// Rows in a table of each server, every attempt's (visible or not).
    static func count(_ table: String, on client: ClickHouseClient) throws -> Int {
        Int(String(decoding: try client.read("SELECT count() FROM \(table)", doing: "counting \(table)"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
