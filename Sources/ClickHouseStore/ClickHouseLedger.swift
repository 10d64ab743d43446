import StoreCore

/// The coordinator's `inputs` table as an ingest needs it: the last input id, the events
/// committed so far (the last seq: seqs run 1, 2, 3 … over committed inputs, as SQLite's do),
/// the committed attempts (whose rows count) and each content's first ingest.
struct ClickHouseLedger: Sendable {
    struct Known: Sendable {
        var path: String
        var outcome: LedgerEntry.Outcome
    }

    var lastID: UInt32 = 0
    var events: UInt64 = 0
    var attempts: [UInt64] = []
    /// By SHA-256: the path and outcome of the input that first had this content.
    var byContent: [String: Known] = [:]

    static let columns = ["id", "attempt", "path", "sha256", "size", "lines", "accepted", "duplicates", "conflicts",
                          "quarantined", "unplanned", "outcome", "error", "started_us", "finished_us"]

    /// Reads the coordinator's ledger.
    static func read(_ store: ClickHouseStore) throws -> ClickHouseLedger {
        let doing = "reading the ledger of \(store.location)"
        let data = try store.coordinator.read("SELECT id, attempt, sha256, path, outcome, accepted FROM inputs ORDER BY id FORMAT RowBinary",
                                              doing: doing)
        var reader = RowBinaryReader(data, doing: doing)
        var ledger = ClickHouseLedger()
        while !reader.isAtEnd {
            let id = try reader.uint32()
            let attempt = try reader.uint64()
            let sha = try reader.string()
            let path = try reader.string()
            let outcome = try reader.string()
            let accepted = try reader.uint64()
            ledger.lastID = max(ledger.lastID, id)
            ledger.events += accepted
            ledger.attempts.append(attempt)
            if ledger.byContent[sha] == nil {
                ledger.byContent[sha] = Known(path: path, outcome: LedgerEntry.Outcome(rawValue: outcome) ?? .partial)
            }
        }
        return ledger
    }

    /// The largest input id the coordinator's ledger holds now (0 when empty).
    static func lastID(_ store: ClickHouseStore, doing: String) throws -> UInt32 {
        var reader = RowBinaryReader(try store.coordinator.read("SELECT toUInt32(max(id)) FROM inputs FORMAT RowBinary", doing: doing),
                                     doing: doing)
        return reader.isAtEnd ? 0 : try reader.uint32()
    }
}
