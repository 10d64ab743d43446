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
    /// The cutters of the inputs read through a source, and each such input's among them (an
    /// array's element is mapped and read in place, where a dictionary's value is copied);
    /// the ids of those read natively.
    private var cutters: [SourceCutter] = []
    private var cutterOf: [Int64: Int] = [:]
    private var native: Set<Int64> = []
    private var inputOfSeq: RawStatement?

    init(_ db: Database) throws {
        self.db = db
        any = try db.columns(in: "inputs").contains { $0.name == "source" }
            && (try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM inputs WHERE source IS NOT NULL)") ?? false)
    }

    /// The line to decode for the stored line of `seq`: itself, or the native line its
    /// input's source maps it to.
    func nativeLine(_ stored: [UInt8], seq: Int64) throws -> [UInt8] {
        guard any else { return stored }
        let input = try inputID(seq: seq)
        guard let c = try cutter(input: input) else { return stored }
        // Mapped in place: the cutter keeps its buffers from line to line.
        switch stored.withUnsafeBufferPointer({ cutters[c].nativeLine($0) }) {
        case .success(let line): return line
        case .failure(let r):
            throw StoreError(doing: "reading event seq \(seq)", reason: "the stored vendor line no longer maps: \(r)", kind: .corrupt)
        }
    }

    private func inputID(seq: Int64) throws -> Int64 {
        let statement = try inputOfSeq ?? RawStatement(db, "SELECT input_id FROM events WHERE seq = ?")
        inputOfSeq = statement
        statement.reset()
        statement.int(1, seq)
        defer { statement.reset() }
        guard try statement.step("reading the input of event seq \(seq)") else {
            throw StoreError(doing: "reading event seq \(seq)", reason: "the event is not stored", kind: .corrupt)
        }
        return statement.int64(0)
    }

    /// The index in `cutters` of the cutter of `input` (made when new), or nil when it was
    /// read natively.
    private func cutter(input: Int64) throws -> Int? {
        if let c = cutterOf[input] { return c }
        if native.contains(input) { return nil }
        let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT source, source_flow FROM inputs WHERE id = ?"), arguments: [input])
        guard let json: String = row?[0] else {
            native.insert(input)
            return nil
        }
        guard let cutter = InputSourceRecord(definitionJSON: json, defaultFlow: row?[1]).cutter else {
            throw StoreError(doing: "reading input \(input)", reason: "its recorded source definition does not read", kind: .corrupt)
        }
        cutterOf[input] = cutters.count
        cutters.append(cutter)
        return cutters.count - 1
    }
}
