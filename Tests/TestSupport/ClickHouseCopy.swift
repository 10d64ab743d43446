import Foundation
import FunnelModel
import EventStore
import ClickHouseStore
import StoreCore

/// A SQLite store's log copied into a ClickHouse store table by table, as ingests would have
/// written it: what the read tests compare the two stores' answers on, apart from the ingest.
public enum ClickHouseCopy {
    /// Copies the SQLite store's log into `store` as ingests would have written it, each input
    /// under an attempt of its own, then the rows of an attempt the ledger never got.
    public static func copy(_ sqlite: EventStore, into store: ClickHouseStore) throws {
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
            events.string(e.rawName)
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
        try store.coordinator.insert(into: "events", columns: eventColumns, rows: events, doing: "copying events", settings: settings)

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
                                     rows: quarantine, doing: "copying the quarantine")
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
                                     rows: duplicates, doing: "copying duplicates")
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
                                     rows: conflicts, doing: "copying conflicts")
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
                                     rows: perFlow, doing: "copying flows")
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
                                     rows: ledger, doing: "copying the ledger")
    }
}
