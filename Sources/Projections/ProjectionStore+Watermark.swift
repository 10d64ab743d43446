import Foundation
import FunnelModel
import EventStore
import GRDB
import StoreCore
import Journeys

extension ProjectionStore {
    /// Writes folded journeys, through one `JourneyRowWriter` for all of them, in key order:
    /// each B-tree keyed by user is then walked forward instead of at random.
    static func apply(_ rows: [FoldedRow], contexts: [String: FlowContext], in db: Database) throws {
        let writer = try JourneyRowWriter(db)
        // Each row read where it is, not copied out.
        try rows.withUnsafeBufferPointer { rows in
            for i in keyOrder(rows) { try apply(rows[i], contexts: contexts, writer: writer, in: db) }
        }
    }

    /// Positions of `rows` by (flow, user) as SQLite orders text (its bytes), ties in place.
    /// Each row's flow is ranked and its user's first 8 bytes read once, before the sort: most
    /// pairs differ there, and the text is compared only where they do not.
    static func keyOrder(_ rows: [FoldedRow]) -> [Int] {
        rows.withUnsafeBufferPointer { keyOrder($0) }
    }

    /// `keyOrder(_:)` of rows read where they are.
    static func keyOrder(_ rows: UnsafeBufferPointer<FoldedRow>) -> [Int] {
        let flows = Set(rows.indices.map { rows[$0].key.flow }).sorted(by: bytesPrecede)
        let rank = Dictionary(uniqueKeysWithValues: flows.enumerated().map { ($1, $0) })
        let keys = rows.indices.map { (flow: rank[rows[$0].key.flow] ?? 0, user: leadingBytes(rows[$0].key.user)) }
        return rows.indices.sorted { a, b in
            if keys[a].flow != keys[b].flow { return keys[a].flow < keys[b].flow }
            if keys[a].user != keys[b].user { return keys[a].user < keys[b].user }
            let x = rows[a].key.user, y = rows[b].key.user
            if x != y { return bytesPrecede(x, y) }
            return a < b
        }
    }

    /// `s`'s first 8 UTF-8 bytes as a big-endian integer, zeros past its end: where two of
    /// them differ, the strings' bytes order the same way.
    static func leadingBytes(_ s: String) -> UInt64 {
        var v: UInt64 = 0
        var n = 0
        for byte in s.utf8.prefix(8) {
            v = v << 8 | UInt64(byte)
            n += 1
        }
        return n == 0 ? 0 : v << (8 * UInt64(8 - n))
    }

    /// Whether `a`'s UTF-8 bytes sort before `b`'s (as SQLite's BINARY collation orders text):
    /// compared with `memcmp` over the strings' contiguous bytes, not a byte at a time.
    static func bytesPrecede(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                if common > 0, let xb = x.baseAddress, let yb = y.baseAddress {
                    let c = memcmp(xb, yb, common)
                    if c != 0 { return c < 0 }
                }
                return x.count < y.count
            }
        }
    }

    /// Writes one folded journey with `writer` (or removes a journey the log no longer has
    /// events for).
    private static func apply(_ row: FoldedRow, contexts: [String: FlowContext], writer: JourneyRowWriter, in db: Database) throws {
        let key = row.key
        switch row.outcome {
        case .row(let e):
            try writer.write(e, context: contexts[key.flow] ?? FlowContext(nil))
        case .failed(let message):
            throw StoreError(doing: "folding the journey of \(key.user) in \(key.flow)", reason: message)
        case .none:
            // A plan from buffered events always has events; one from the log may not.
            if row.fromLog {
                try remove(flow: key.flow, user: key.user, in: db)
            }
        }
    }

    /// The watermark: every event up to this seq is in the journeys.
    static func watermark(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT seq FROM journeys_watermark WHERE id = 1") ?? 0
    }

    static func setWatermark(_ seq: Int64, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE journeys_watermark SET seq = ? WHERE id = 1").execute(arguments: [seq])
    }

    /// Adds to `p`, to be folded from the log, every user and flow with events past the
    /// watermark that came before this input (left unfolded by an ingest that was killed).
    static func addMissing(to p: inout PendingFold, in db: Database) throws {
        let watermark = try watermark(in: db)
        let before = p.firstSeq == .max ? p.through + 1 : p.firstSeq
        let missing = (watermark + 1)..<max(watermark + 1, before)
        guard try EventStore.hasEvents(in: missing, in: db) else { return }
        for (user, flow) in try EventStore.usersAndFlows(withEventsIn: missing, in: db) {
            let key = JourneyKey(flow: flow, user: user)
            if p.buffered.updateValue(nil, forKey: key) == nil { p.order.append(key) }
        }
    }

    /// The users of `flow` with events past the watermark (journeys an ingest left unfolded).
    static func usersPastWatermark(flow: String, in db: Database) throws -> [String] {
        let watermark = try watermark(in: db)
        guard try EventStore.hasEvents(after: watermark, in: db) else { return [] }
        return try EventStore.users(of: flow, withEventsAfter: watermark, in: db)
    }
}
