import FunnelModel
import EventLog
import GRDB

/// How an event's line is kept: byte for byte, but small.
///
/// Most lines share their layout (keys, order, spacing, context) and differ only in their
/// envelope values. A line's *shape* is the line with the values of event_id, event, user_id,
/// ts, flow, step and properties cut out, each cut marked by a 0x00 byte and a field code
/// (0x00 never occurs in a valid JSON line); shapes are interned in the `shapes` table. The
/// row's `body` is the shape id followed by the cut values in line order: event_id, ts and
/// properties as length-prefixed bytes, event name and step as atom ids; user and flow come
/// from the row's own atom columns. A value written with escapes is not cut (it stays in the
/// shape), and a body whose shape id is 0 holds the line itself.
enum StoredLine {
    enum Field: UInt8 {
        case eventID = 1, name, user, ts, flow, step, properties
    }

    /// 64-bit FNV-1a of the (decoded) event id: the dedupe index key.
    static func idHash(_ b: UnsafeBufferPointer<UInt8>) -> Int64 {
        Int64(bitPattern: ByteInterner.hash(b))
    }

    /// The event id of a stored line (unescaped), or nil when the line is not a valid event.
    static func eventID(of line: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var decoder = EventDecoder()
        guard case .success(let env) = decoder.envelope(line) else { return nil }
        let r = env.eventID
        return r.inScratch ? Array(decoder.scratch[Int(r.start)..<Int(r.end)]) : Array(line[Int(r.start)..<Int(r.end)])
    }

    static func appendVarint(_ v: UInt64, to out: inout [UInt8]) {
        var v = v
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    static func readVarint(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> UInt64? {
        var v: UInt64 = 0
        var shift: UInt64 = 0
        while i < b.count {
            let c = b[i]
            i += 1
            v |= UInt64(c & 0x7F) << shift
            if c < 0x80 { return v }
            shift += 7
            if shift > 63 { return nil }
        }
        return nil
    }
}

/// Cuts a line into its shape and body on the ingest path, reusing its buffers.
struct LineEncoder {
    /// A value cut out of the line: batch-absolute byte range, field, and for name/step the
    /// atom id (filled in by the caller).
    struct Cut {
        var start: Int
        var end: Int
        var field: StoredLine.Field
    }
    var cuts: [Cut] = []
    var skeleton: [UInt8] = []
    var body: [UInt8] = []

    init() {
        cuts.reserveCapacity(8)
        skeleton.reserveCapacity(512)
        body.reserveCapacity(1024)
    }

    /// Picks the cuts of a line at `lineStart..<lineEnd` of `b` and builds its skeleton.
    mutating func shape(_ env: Envelope, lineStart: Int, lineEnd: Int, in b: UnsafeBufferPointer<UInt8>) {
        pickCuts(env, lineStart: lineStart, lineEnd: lineEnd)
        skeleton.removeAll(keepingCapacity: true)
        var pos = lineStart
        for c in cuts {
            skeleton.append(contentsOf: UnsafeBufferPointer(rebasing: b[pos..<c.start]))
            skeleton.append(0)
            skeleton.append(c.field.rawValue)
            pos = c.end
        }
        skeleton.append(contentsOf: UnsafeBufferPointer(rebasing: b[pos..<lineEnd]))
    }

    /// Picks the cuts of a line at `lineStart..<lineEnd`, in line order (none when they
    /// overlap), without building its skeleton.
    mutating func pickCuts(_ env: Envelope, lineStart: Int, lineEnd: Int) {
        cuts.removeAll(keepingCapacity: true)
        func add(_ r: StringRef?, _ f: StoredLine.Field) {
            guard let r, Int(r.start) >= lineStart, Int(r.end) <= lineEnd else { return }
            cuts.append(Cut(start: Int(r.start), end: Int(r.end), field: f))
        }
        add(env.eventID, .eventID)
        add(env.name, .name)
        add(env.userID, .user)
        add(env.timeText, .ts)
        add(env.flow, .flow)
        add(env.step, .step)
        if let p = env.properties, p.lowerBound >= lineStart, p.upperBound <= lineEnd {
            cuts.append(Cut(start: p.lowerBound, end: p.upperBound, field: .properties))
        }
        // Line order (insertion sort: at most seven cuts).
        if cuts.count > 1 {
            for i in 1..<cuts.count {
                var j = i
                while j > 0 && cuts[j - 1].start > cuts[j].start {
                    cuts.swapAt(j - 1, j)
                    j -= 1
                }
            }
        }
        // Overlapping cuts cannot happen for distinct top-level fields; if they ever did,
        // keep the line whole.
        var previousEnd = lineStart
        for c in cuts {
            if c.start < previousEnd { cuts.removeAll(keepingCapacity: true); break }
            previousEnd = c.end
        }
    }

    /// The body for the cuts picked by `shape`, given the shape id and the atom ids of the
    /// name and step values.
    mutating func body(shapeID: Int64, nameAtom: Int64, stepAtom: Int64, in b: UnsafeBufferPointer<UInt8>) {
        body.removeAll(keepingCapacity: true)
        StoredLine.appendVarint(UInt64(shapeID), to: &body)
        for c in cuts {
            switch c.field {
            case .eventID, .ts, .properties:
                StoredLine.appendVarint(UInt64(c.end - c.start), to: &body)
                body.append(contentsOf: UnsafeBufferPointer(rebasing: b[c.start..<c.end]))
            case .name: StoredLine.appendVarint(UInt64(nameAtom), to: &body)
            case .step: StoredLine.appendVarint(UInt64(stepAtom), to: &body)
            case .user, .flow: break
            }
        }
    }

    /// A body holding the line itself.
    mutating func verbatim(_ line: UnsafeBufferPointer<UInt8>) {
        body.removeAll(keepingCapacity: true)
        body.append(0)
        body.append(contentsOf: line)
    }

    func cut(_ f: StoredLine.Field) -> Cut? { cuts.first { $0.field == f } }
}

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

    init(_ db: Database) throws {
        self.db = db
        atomStatement = try RawStatement(cached: "SELECT text FROM atoms WHERE id = ?", in: db)
        shapeStatement = try RawStatement(cached: "SELECT skeleton FROM shapes WHERE id = ?", in: db)
    }

    private func fetch(_ statement: RawStatement, _ id: Int64, what: String) throws -> [UInt8] {
        statement.reset()
        statement.int(1, id)
        defer { statement.reset() }
        guard try statement.step("reading \(what) \(id) of the log") else {
            throw StoreError(doing: "reading the log", reason: "\(what) \(id) is missing")
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

    /// The original line of a row, byte for byte.
    func line(user: Int64, flow: Int64, body: UnsafeRawBufferPointer, seq: Int64) throws -> [UInt8] {
        func bad(_ why: String) -> StoreError {
            StoreError(doing: "reading event seq \(seq)", reason: "the stored line does not decode: \(why)")
        }
        var i = 0
        guard let shapeID = StoredLine.readVarint(body, &i) else { throw bad("no shape") }
        if shapeID == 0 { return Array(UnsafeRawBufferPointer(rebasing: body[i...])) }
        let skeleton = try shape(Int64(bitPattern: shapeID))
        var out: [UInt8] = []
        out.reserveCapacity(skeleton.count + body.count + 32)
        var k = 0
        while k < skeleton.count {
            let c = skeleton[k]
            if c != 0 {
                out.append(c)
                k += 1
                continue
            }
            guard k + 1 < skeleton.count, let field = StoredLine.Field(rawValue: skeleton[k + 1]) else { throw bad("bad shape") }
            k += 2
            switch field {
            case .eventID, .ts, .properties:
                guard let n = StoredLine.readVarint(body, &i), n <= UInt64(body.count - i) else { throw bad("short value") }
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: body[i..<(i + Int(n))]))
                i += Int(n)
            case .name, .step:
                guard let id = StoredLine.readVarint(body, &i) else { throw bad("short atom") }
                out.append(contentsOf: try atom(Int64(bitPattern: id)))
            case .user: out.append(contentsOf: try atom(user))
            case .flow: out.append(contentsOf: try atom(flow))
            }
        }
        guard i == body.count else { throw bad("trailing bytes") }
        return out
    }

    /// Reads rows `seq, user, flow, body` of `statement` (already bound) as recorded events.
    func recorded(_ statement: RawStatement, _ body: (RecordedEvent) throws -> Void) throws {
        try statement.forEachRow("reading the log") {
            let seq = statement.int64(0)
            let bytes = try line(user: statement.int64(1), flow: statement.int64(2), body: statement.bytes(3), seq: seq)
            let decoded = bytes.withUnsafeBufferPointer { b -> Result<Event, Rejection> in
                switch decoder.envelope(b) {
                case .success(let env): return .success(decoder.event(from: env, in: b, cache: &cache))
                case .failure(let r): return .failure(r)
                }
            }
            switch decoded {
            case .success(let event): try body(RecordedEvent(seq: seq, event: event, line: String(decoding: bytes, as: UTF8.self)))
            case .failure(let r):
                throw StoreError(doing: "reading event seq \(seq)", reason: "the stored line no longer decodes: \(r.text)")
            }
        }
    }
}
