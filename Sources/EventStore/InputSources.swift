import FunnelModel
import GRDB
import LogSources
import StoreCore

/// The sources of the inputs read through one (`inputs.source`, a vendor's export), by input
/// id: how a reader turns a stored vendor line into the native line `EventDecoder` reads. A
/// store with no such input costs nothing per row.
final class InputSources {
    private let db: Database
    /// Whether any input was read through a source (or may be: the store's own ingest).
    private let any: Bool
    /// The cutters of the inputs read through a source; the ids of those read natively.
    private var cutters = SourceCutters()
    private var native: Set<Int64> = []
    private let rows: LogRows

    init(_ db: Database) throws {
        self.db = db
        rows = LogRows(db)
        any = try db.columns(in: "inputs").contains { $0.name == "source" }
            && (try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM inputs WHERE source IS NOT NULL)") ?? false)
    }

    /// The line to decode for the stored line of `seq`: itself, or the native line its
    /// input's source maps it to.
    func nativeLine(_ stored: [UInt8], seq: Int64) throws -> [UInt8] {
        guard any else { return stored }
        let input = try inputID(seq: seq)
        guard try hasSource(input: input) else { return stored }
        // Mapped in place: the cutter keeps its buffers from line to line.
        switch stored.withUnsafeBufferPointer({ cutters.nativeLine(input: input, $0) }) {
        case .success(let line)?: return line
        case .failure(let r)?:
            throw StoreError(doing: "reading event seq \(seq)", reason: "the stored vendor line no longer maps: \(r)", kind: .corrupt)
        case nil: return stored
        }
    }

    private func inputID(seq: Int64) throws -> Int64 {
        guard let input = try rows.row(seq: seq, doing: "reading the input of event seq \(seq)", { $0.inputID }) else {
            throw StoreError(doing: "reading event seq \(seq)", reason: "the event is not stored", kind: .corrupt)
        }
        return input
    }

    /// Whether `input` was read through a source (its cutter then made).
    private func hasSource(input: Int64) throws -> Bool {
        if cutters.has(input: input) { return true }
        if native.contains(input) { return false }
        let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT source, source_flow FROM inputs WHERE id = ?"), arguments: [input])
        guard let json: String = row?[0] else {
            native.insert(input)
            return false
        }
        guard let cutter = InputSourceRecord(definitionJSON: json, defaultFlow: row?[1]).cutter else {
            throw StoreError(doing: "reading input \(input)", reason: "its recorded source definition does not read", kind: .corrupt)
        }
        cutters.add(cutter, input: input)
        return true
    }
}
