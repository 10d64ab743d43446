import FunnelModel
import StoreCore

extension ClickHouseStore {
    /// Calls `body` with each selected event's line, byte for byte as accepted, in arrival
    /// order, as the SQLite store's `forEachLine` does. Reads a range of seqs per answer
    /// (merged across shards by ClickHouse), so memory does not grow with the log. Returns
    /// how many lines it gave.
    @discardableResult
    public func forEachLine(_ selection: EventSelection, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Int {
        let snapshot = try snapshot()
        var filter = snapshot.clause
        if let flow = selection.flow { filter += " AND flow = \(ClickHouseSQL.quote(flow))" }
        if let user = selection.user { filter += " AND user_id = \(ClickHouseSQL.quote(user))" }
        if let since = selection.since { filter += " AND ts_us >= \(since.micros)" }
        if let until = selection.until { filter += " AND ts_us < \(until.micros)" }
        var last: UInt64 = 0
        try rows(coordinator, "SELECT max(seq) FROM events WHERE \(snapshot.clause)", doing: "exporting events") { r in
            last = try r.uint64()
        }
        let shapes = try ClickHouseShapes.load(self)
        var line: [UInt8] = []
        var count = 0
        var from: UInt64 = 0
        while from < last {
            let to = min(last, from + Tuning.exportSeqs)
            try rows(coordinator, """
                SELECT seq, \(ClickHouseShapes.lineColumns) FROM events WHERE \(filter) AND seq > \(from) AND seq <= \(to) ORDER BY seq
                """, doing: "exporting events") { r in
                let seq = Int64(bitPattern: try r.uint64())
                if let whole = try shapes.line(from: &r, seq: seq, into: &line) {
                    try whole.withUnsafeBufferPointer(body)
                } else {
                    try line.withUnsafeBufferPointer(body)
                }
                count += 1
            }
            from = to
        }
        return count
    }
}
