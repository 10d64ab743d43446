import Foundation
import FunnelModel
import EventStore
import GRDB
import StoreCore
import Journeys

extension ProjectionStore {
    /// Every journey of a flow, refolding from the log the ones folded with another
    /// definition than `definition`.
    public static func journeys(flow: String, definition: FlowDefinition?, store: EventStore) throws -> [Journey] {
        var out: [Journey] = []
        try forEachJourney(flow: flow, definition: definition, store: store) { out.append($0) }
        let order = out.indices.sorted { bytesPrecede(out[$0].userID, out[$1].userID) }
        return order.map { out[$0] }
    }

    /// Refolds the journeys of a flow folded with another definition than `definition`, and
    /// folds the ones an ingest left past the watermark (it was killed before writing them).
    /// A store opened read-only is not written: the users that needed it are returned, and
    /// the readers fold their stored rows again from the log as they meet them.
    @discardableResult
    static func refoldStale(flow: String, context: FlowContext, store: EventStore) throws -> Set<String> {
        let stale = try store.writer.read { db in
            let changed = try String.fetchAll(db, sql: "SELECT user_id FROM journeys WHERE flow = ? AND definition <> ?",
                                              arguments: [flow, context.fingerprint])
            let missing = try usersPastWatermark(flow: flow, in: db)
            let known = Set(changed)
            return changed + missing.filter { !known.contains($0) }
        }
        guard store.access == .readWrite else { return Set(stale) }
        if !stale.isEmpty {
            try store.writer.write { db in
                for user in stale { try refold(user: user, flow: flow, context: context, in: db) }
            }
        }
        return []
    }

    /// Streams every journey of a flow in table order (memory does not grow with the number
    /// of users), refolding first the ones folded with another definition. With `asOf`, a
    /// journey with events after it is folded again from the log up to `asOf` (and left out
    /// when it had not begun by then), as `journeys(_:asOf:definition:store:)` does;
    /// `refolds` is told how many journeys are folded again from the log.
    public static func forEachJourney(flow: String, definition: FlowDefinition?, store: EventStore, asOf: Timestamp? = nil,
                                      refolds: RefoldProgress? = nil, _ body: (Journey) throws -> Void) throws {
        try forEachStored(flow: flow, definition: definition, store: store, asOf: asOf, refolds: refolds,
                          decode: { bytes, cache, names in
                              let j = try Journey(binary: bytes, cache: cache, names: names)
                              return (j, j.userID, j.firstEventAt.micros, j.lastEventAt.micros)
                          },
                          whole: { $0 }, body)
    }

    /// Streams what `request` asks of every journey of a flow (`JourneyGlance`), as
    /// `forEachJourney` streams the journeys, without decoding them whole.
    public static func forEachGlance(flow: String, definition: FlowDefinition, store: EventStore, asOf: Timestamp?,
                                     request: JourneyGlance.Request, refolds: RefoldProgress? = nil,
                                     _ body: (JourneyGlance) throws -> Void) throws {
        let context = FlowContext(definition)
        let stale = try refoldStale(flow: flow, context: context, store: store)
        try store.writer.read { db in
            try scanGlances(flow: flow, context: context, asOf: asOf, request: request, rows: nil, stale: stale, refolds: refolds,
                            in: db, body)
        }
    }

    /// `forEachGlance` added into `blank`, in `shares` ranges of the table's rows, each read on
    /// a thread of its own with a connection of its own (the scan's decoding is most of
    /// `funnel explain`). When the ranges' transactions saw different states of the store, the
    /// whole flow is read once more (`readShares`).
    public static func accumulateGlances<A: JourneyAccumulator>(flow: String, definition: FlowDefinition, store: EventStore,
                                                                asOf: Timestamp?, request: JourneyGlance.Request,
                                                                shares: Int = Tuning.glanceShares, refolds: RefoldProgress? = nil,
                                                                into blank: A) throws -> A where A.Element == JourneyGlance {
        let context = FlowContext(definition)
        let stale = try refoldStale(flow: flow, context: context, store: store)
        let (low, high) = try store.writer.read { db -> (Int64, Int64) in
            let row = try Row.fetchOne(db, sql: "SELECT coalesce(min(rowid), 0), coalesce(max(rowid), 0) FROM journeys")
            return (row?[0] ?? 0, row?[1] ?? 0)
        }
        let count = Int64(max(1, min(shares, Int(high - low) + 1)))
        let bounds = (0...count).map { low + (high - low + 1) * $0 / count }
        return try readShares(Int(count), into: blank, store: store, doing: "reading the journeys of \(flow)", { part, db, accumulator in
            try scanGlances(flow: flow, context: context, asOf: asOf, request: request,
                            rows: bounds[part]..<bounds[part + 1], stale: stale, refolds: refolds, in: db) { accumulator.add($0) }
        }, whole: { db, accumulator in
            try scanGlances(flow: flow, context: context, asOf: asOf, request: request, rows: nil, stale: stale, refolds: refolds,
                            in: db) { accumulator.add($0) }
        })
    }

    /// The glances of the rows in `rows` (nil: every row).
    private static func scanGlances(flow: String, context: FlowContext, asOf: Timestamp?,
                                    request: JourneyGlance.Request, rows: Range<Int64>?, stale: Set<String>,
                                    refolds: RefoldProgress?, in db: Database, _ body: (JourneyGlance) throws -> Void) throws {
        // The request's names looked up once, in the names the rows were written with; one
        // glance read into again and again.
        var codes: JourneyGlance.Codes?
        var glance = JourneyGlance(empty: request)
        try scanStored(flow: flow, context: context, asOf: asOf, rows: rows, stale: stale, refolds: refolds, in: db,
                       decode: { bytes, cache, names in
                           let c = codes ?? JourneyGlance.Codes(request, names)
                           codes = c
                           try glance.read(binary: bytes, request: c, cache: cache)
                           return (glance, glance.userID, glance.firstEventAt, glance.lastEventAt)
                       },
                       whole: { JourneyGlance($0, request: request) }, body)
    }

    /// The loop of `forEachJourney` and `forEachGlance`: `decode` reads a stored row (with
    /// its user and first and last event times), `whole` stands for a journey folded again
    /// from the log.
    private static func forEachStored<T>(flow: String, definition: FlowDefinition?, store: EventStore, asOf: Timestamp?,
                                         refolds: RefoldProgress?,
                                         decode: (UnsafeRawBufferPointer, JourneyDecodingCache, JourneyNames) throws -> StoredRow<T>,
                                         whole: (Journey) -> T, _ body: (T) throws -> Void) throws {
        let context = FlowContext(definition)
        let stale = try refoldStale(flow: flow, context: context, store: store)
        try store.writer.read { db in
            try scanStored(flow: flow, context: context, asOf: asOf, rows: nil, stale: stale, refolds: refolds, in: db,
                           decode: decode, whole: whole, body)
        }
    }

    /// The rows of a flow's journeys in `rows` (rowids; nil: all), in table order, once
    /// `refoldStale` has run; the rows of `stale` users (which a read-only store could not
    /// refresh) are folded again from the log. `refolds` is first told how many rows are folded
    /// again (past `asOf`, or folded with another definition), then of each as it is.
    private static func scanStored<T>(flow: String, context: FlowContext, asOf: Timestamp?, rows: Range<Int64>?,
                                      stale: Set<String>, refolds: RefoldProgress?, in db: Database,
                                      decode: (UnsafeRawBufferPointer, JourneyDecodingCache, JourneyNames) throws -> StoredRow<T>,
                                      whole: (Journey) -> T, _ body: (T) throws -> Void) throws {
        // `+flow`: a table scan, not the primary key index and a row lookup per journey.
        let range = rows == nil ? "" : " AND rowid >= ? AND rowid < ?"
        let statement = try RawStatement(db, "SELECT data, definition, user_id FROM journeys WHERE +flow = ?" + range)
        statement.text(1, flow)
        if let rows {
            statement.int(2, rows.lowerBound)
            statement.int(3, rows.upperBound)
        }
        if let refolds { refolds.expect(try refoldCount(flow: flow, context: context, asOf: asOf, rows: rows, in: db)) }
        let cache = JourneyDecodingCache()
        var refold = LogRefold(flow: flow, context: context, until: asOf, in: db)
        func refolded(_ user: String) throws {
            let folded = try refold.journey(user: user)
            refolds?.folded()
            if let folded { try body(whole(folded)) }
        }
        try statement.forEachRow("reading the journeys of \(flow)") {
            // A row another ingest folded with another definition since `refoldStale`
            // (its names are indexes into that one): folded again here from the log.
            guard statement.textEquals(1, context.fingerprint) else {
                guard let user = statement.string(2) else {
                    throw StoreError(doing: "reading the journeys of \(flow)", reason: "a journey row without a user id", kind: .corrupt)
                }
                try refolded(user)
                return
            }
            let row: StoredRow<T>
            do {
                row = try decode(statement.bytes(0), cache, context.names)
            } catch {
                throw StoreError(doing: "reading the journeys of \(flow)", reason: "\(error)", kind: .corrupt)
            }
            if !stale.isEmpty, stale.contains(row.user) {
                try refolded(row.user)
            } else if let asOf, row.lastEventAt > asOf.micros {
                // A journey that began after `asOf` is left out without reading the log.
                if row.firstEventAt <= asOf.micros { try refolded(row.user) }
            } else {
                try body(row.value)
            }
        }
    }

    /// How many rows of a flow's journeys in `rows` `scanStored` folds again: those past
    /// `asOf`, read on the `last_us` index (`+`: not on another one), as many as began by
    /// then or were folded with another definition, and those folded with another
    /// definition, on the definition index (`<` or `>`: `<>` reads no index).
    private static func refoldCount(flow: String, context: FlowContext, asOf: Timestamp?, rows: Range<Int64>?,
                                    in db: Database) throws -> Int {
        let range = rows == nil ? "" : " AND rowid >= ? AND rowid < ?"
        let rowArguments: StatementArguments = rows.map { [$0.lowerBound, $0.upperBound] } ?? []
        var count = 0
        var other = "SELECT count(*) FROM journeys WHERE flow = ? AND (definition < ? OR definition > ?)" + range
        var otherArguments: StatementArguments = [flow, context.fingerprint, context.fingerprint] + rowArguments
        if let asOf {
            let past = try RawStatement(db, "SELECT data, definition FROM journeys WHERE last_us > ? AND +flow = ?"
                                            + (rows == nil ? "" : " AND +rowid >= ? AND +rowid < ?"))
            past.int(1, asOf.micros)
            past.text(2, flow)
            if let rows {
                past.int(3, rows.lowerBound)
                past.int(4, rows.upperBound)
            }
            let doing = "reading the journeys of \(flow)"
            try past.forEachRow(doing) {
                guard past.textEquals(1, context.fingerprint) else { count += 1; return }
                do {
                    if try Journey.firstEventAt(binary: past.bytes(0)) <= asOf { count += 1 }
                } catch {
                    throw StoreError(doing: doing, reason: "\(error)", kind: .corrupt)
                }
            }
            other += " AND last_us <= ?"
            otherArguments += [asOf.micros]
        }
        return count + (try Int.fetchOne(db, sql: other, arguments: otherArguments) ?? 0)
    }

    /// A stored row as `scanStored` reads it: the value, its user and its journey's first
    /// and last event times (microseconds).
    private typealias StoredRow<T> = (value: T, user: String, firstEventAt: Int64, lastEventAt: Int64)

    /// Journeys as of `asOf`: a journey with events after it is folded again from the log up
    /// to `asOf` (and left out when it had not begun by then).
    public static func journeys(_ journeys: [Journey], asOf: Timestamp, definition: FlowDefinition?,
                                store: EventStore) throws -> [Journey] {
        var out: [Journey] = []
        out.reserveCapacity(journeys.count)
        var later: [Journey] = []
        // A journey that began after `asOf` is left out without reading the log.
        for j in journeys where j.firstEventAt <= asOf {
            if j.lastEventAt > asOf { later.append(j) } else { out.append(j) }
        }
        if !later.isEmpty {
            let context = FlowContext(definition)
            try store.writer.read { db in
                var refolds: [String: LogRefold] = [:]
                for j in later {
                    var refold = refolds[j.flow] ?? LogRefold(flow: j.flow, context: context, until: asOf, in: db)
                    let cut = try refold.journey(user: j.userID)
                    refolds[j.flow] = refold
                    if let cut { out.append(cut) }
                }
            }
        }
        return out
    }
}
