import FunnelModel
import LogFiles
import GRDB
import StoreCore

/// One user's stored lines in one flow, read on the writing thread, decoded on any thread
/// (so that refolding from the log can use both cores).
public struct StoredLines: Sendable {
    public private(set) var seqs: [Int64] = []
    private var bytes: [UInt8] = []
    private var ends: [Int] = []
    /// The stored line of each line held as its native line (a vendor's), by index.
    private var originals: [Int: [UInt8]] = [:]

    public init() {}

    /// Bytes of line text held.
    public var byteCount: Int { bytes.count }

    /// `original`: the stored line when `line` is the native line it maps to.
    mutating func append(seq: Int64, line: [UInt8], original: [UInt8]? = nil) {
        if let original { originals[seqs.count] = original }
        seqs.append(seq)
        bytes.append(contentsOf: line)
        ends.append(bytes.count)
    }

    /// The events, decoded, in arrival (seq) order; each with its line when `keepingLines`.
    public func events(keepingLines: Bool = false) throws -> [RecordedEvent] {
        var decoder = EventDecoder()
        var cache = EventCache()
        var out: [RecordedEvent] = []
        out.reserveCapacity(seqs.count)
        try bytes.withUnsafeBufferPointer { all in
            var start = 0
            for i in seqs.indices {
                let b = UnsafeBufferPointer(rebasing: all[start..<ends[i]])
                start = ends[i]
                switch decoder.envelope(b) {
                case .success(let env):
                    out.append(RecordedEvent(seq: seqs[i], event: decoder.event(from: env, in: b, cache: &cache),
                                             line: keepingLines ? text(i, b) : ""))
                case .failure(let r):
                    throw StoreError(doing: "reading event seq \(seqs[i])", reason: "the stored line no longer decodes: \(r.text)", kind: .corrupt)
                }
            }
        }
        return out
    }

    /// Line `i` as stored (`b`, or the vendor's line it was mapped from).
    private func text(_ i: Int, _ b: UnsafeBufferPointer<UInt8>) -> String {
        if let original = originals[i] { return String(decoding: original, as: UTF8.self) }
        return String(decoding: b, as: UTF8.self)
    }
}

extension EventStore {
    /// Every user's lines, one user and flow at a time (in atom order): what a rebuild folds.
    /// Memory holds one user's lines.
    public static func forEachUsersLines(in db: Database, _ body: (_ user: String, _ flow: String, StoredLines) throws -> Void) throws {
        let statement = try RawStatement(db, "SELECT user, flow, seqs FROM user_runs ORDER BY user, flow, first_seq")
        let reader = try StoredLineReader(db)
        try UserRuns.forEachGroup(statement) { user, flow, seqs in
            try body(String(decoding: try reader.atom(user), as: UTF8.self), String(decoding: try reader.atom(flow), as: UTF8.self),
                     storedLines(seqs: seqs, reader: reader, in: db))
        }
    }

    static func storedLines(seqs: [Int64], reader: StoredLineReader, in db: Database) throws -> StoredLines {
        var out = StoredLines()
        try reader.rows.rows(seqs: seqs, doing: "reading events by seq") { seq, row in
            guard let row else {
                throw StoreError(doing: "reading event seq \(seq)", reason: "a user run names an event the log does not hold", kind: .corrupt)
            }
            let line = try reader.line(user: row.user, flow: row.flow, time: row.time, body: row.body, seq: seq)
            let native = try reader.eventLine(line, seq: seq)
            out.append(seq: seq, line: native, original: native == line ? nil : line)
        }
        return out
    }
}
