import FunnelModel
import LogFiles
import GRDB
import StoreCore
import LineParsing

/// Gives back stored lines: looks up atoms and shapes by id (cached for the reader's life).
/// Use one per read; it holds prepared statements of `db`.
final class StoredLineReader {
    private let db: Database
    private let atomStatement: RawStatement
    private let shapeStatement: RawStatement
    private var atoms: [Int64: [UInt8]] = [:]
    private var shapes: [Int64: [UInt8]] = [:]
    private var decoder = EventDecoder()
    private var cache = EventCache()
    private let sources: InputSources
    /// The log's rows, read by seq.
    let rows: LogRows

    init(_ db: Database) throws {
        self.db = db
        sources = try InputSources(db)
        rows = LogRows(db)
        atomStatement = try RawStatement(cached: "SELECT text FROM atoms WHERE id = ?", in: db)
        shapeStatement = try RawStatement(cached: "SELECT skeleton FROM shapes WHERE id = ?", in: db)
    }

    private func fetch(_ statement: RawStatement, _ id: Int64, what: String) throws -> [UInt8] {
        statement.reset()
        statement.int(1, id)
        defer { statement.reset() }
        guard try statement.step("reading \(what) \(id) of the log") else {
            throw StoreError(doing: "reading the log", reason: "\(what) \(id) is missing", kind: .corrupt)
        }
        return Array(statement.bytes(0))
    }

    func atom(_ id: Int64) throws -> [UInt8] {
        if let a = atoms[id] { return a }
        let a = try fetch(atomStatement, id, what: "atom")
        atoms[id] = a
        return a
    }

    func shape(_ id: Int64) throws -> [UInt8] {
        if let s = shapes[id] { return s }
        let s = try fetch(shapeStatement, id, what: "shape")
        shapes[id] = s
        return s
    }

    /// The original line of a row, byte for byte, given its time (a time kept as a form is
    /// written again from it).
    func line(user: Int64, flow: Int64, time: Timestamp, body: UnsafeRawBufferPointer, seq: Int64) throws -> [UInt8] {
        func bad(_ why: String) -> StoreError {
            StoreError(doing: "reading event seq \(seq)", reason: "the stored line does not decode: \(why)", kind: .corrupt)
        }
        var i = 0
        guard let shapeID = Varint.read(body, at: &i) else { throw bad("no shape") }
        if shapeID == 0 { return Array(UnsafeRawBufferPointer(rebasing: body[i...])) }
        let skeleton = try shape(Int64(bitPattern: shapeID))
        func value(into out: inout [UInt8]) throws {
            guard let n = Varint.read(body, at: &i), n <= UInt64(body.count - i) else { throw bad("short value") }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: body[i..<(i + Int(n))]))
            i += Int(n)
        }
        var out: [UInt8] = []
        out.reserveCapacity(skeleton.count + body.count + 32)
        let whole = try skeleton.withUnsafeBufferPointer { sk in
            try LineShape.rebuild(sk, into: &out) { field, out in
                switch field {
                case .eventID, .ts, .properties: try value(into: &out)
                case .formedTS:
                    guard let code = Varint.read(body, at: &i), code <= UInt8.max else { throw bad("short time") }
                    guard code != 0 else { try value(into: &out); break }
                    guard let form = Timestamp.TextForm(code: UInt8(code)) else { throw bad("time form \(code)") }
                    time.appendText(form, into: &out)
                case .formedID: guard EventIDForm.read(body, at: &i, into: &out) else { throw bad("event id not kept in a known form") }
                case .name, .step:
                    guard let id = Varint.read(body, at: &i) else { throw bad("short atom") }
                    out.append(contentsOf: try atom(Int64(bitPattern: id)))
                case .user: out.append(contentsOf: try atom(user))
                case .flow: out.append(contentsOf: try atom(flow))
                }
            }
        }
        guard whole else { throw bad("bad shape") }
        guard i == body.count else { throw bad("trailing bytes") }
        return out
    }

    /// The line `EventDecoder` reads for the stored line of `seq`: the line itself, or for an
    /// input read through a source, the native line it maps to.
    func eventLine(_ stored: [UInt8], seq: Int64) throws -> [UInt8] {
        try sources.nativeLine(stored, seq: seq)
    }

    /// The event of a row: its line as stored and as decoded.
    func recorded(seq: Int64, user: Int64, flow: Int64, time: Timestamp, body: UnsafeRawBufferPointer) throws -> RecordedEvent {
        let bytes = try line(user: user, flow: flow, time: time, body: body, seq: seq)
        let native = try eventLine(bytes, seq: seq)
        let decoded = native.withUnsafeBufferPointer { b -> Result<Event, Rejection> in
            switch decoder.envelope(b) {
            case .success(let env): return .success(decoder.event(from: env, in: b, cache: &cache))
            case .failure(let r): return .failure(r)
            }
        }
        switch decoded {
        case .success(let event): return RecordedEvent(seq: seq, event: event, line: String(decoding: bytes, as: UTF8.self))
        case .failure(let r):
            throw StoreError(doing: "reading event seq \(seq)", reason: "the stored line no longer decodes: \(r.text)", kind: .corrupt)
        }
    }
}
