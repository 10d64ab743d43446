import FunnelModel
import LineParsing
import StoreCore

/// The line shapes of a ClickHouse store (`LineShape`), in its `shapes` table (the same rows
/// on every server). An event row keeps its line as the id of its shape, the values its own
/// columns do not hold (`cut_values`: its time and properties as written, in line order) and
/// an empty `line`; a row whose shape is 0 keeps the line whole in `line`. A shape's id is
/// its skeleton's 64-bit FNV-1a: a skeleton whose hash is 0, or another skeleton's, is not
/// stored, and its lines are kept whole.
public struct ClickHouseShapes: Sendable {
    private var skeletons: [UInt64: [UInt8]] = [:]
    /// Shapes learnt since the last `save`.
    private var unsaved: [UInt64] = []

    /// The columns `line(from:)` reads, in its order.
    public static let lineColumns = "line, shape, event_id, event, user_id, flow, step, cut_values"

    /// The stored shapes of `store` (from its first server).
    public static func load(_ store: ClickHouseStore) throws -> ClickHouseShapes {
        var out = ClickHouseShapes()
        try store.rows(store.coordinator, "SELECT id, any(skeleton) FROM shapes GROUP BY id",
                       doing: "reading the line shapes of \(store.location)") { r in
            out.skeletons[try r.uint64()] = Array(try r.bytesOfString())
        }
        return out
    }

    /// The id of `skeleton`, learnt (`created`) when new and `create` allows; nil: its lines
    /// are kept whole.
    mutating func id(_ skeleton: UnsafeBufferPointer<UInt8>, create: Bool) -> (id: UInt64, created: Bool)? {
        let id = FNV1a.hash(skeleton)
        guard id != 0 else { return nil }
        if let known = skeletons[id] { return known.elementsEqual(skeleton) ? (id, false) : nil }
        guard create else { return nil }
        skeletons[id] = Array(skeleton)
        unsaved.append(id)
        return (id, true)
    }

    /// Inserts the shapes learnt since the last save on every server of `store`, the first
    /// server last: `load` reads the first server's, so a shape it finds is on every server
    /// (a save killed halfway is done again by the next ingest).
    mutating func save(_ store: ClickHouseStore, doing: String) throws {
        guard !unsaved.isEmpty else { return }
        var rows = RowBinaryWriter()
        for id in unsaved {
            rows.uint64(id)
            rows.string(bytes: skeletons[id] ?? [])
        }
        for server in store.servers.reversed() {
            try server.insert(into: "shapes", columns: ["id", "skeleton"], rows: rows, doing: doing)
        }
        unsaved = []
    }

    /// The line of the row whose `lineColumns` `r` reads next, byte for byte (`seq`: the
    /// row's, for an error).
    public func line(from r: inout RowBinaryReader, seq: Int64) throws -> ArraySlice<UInt8> {
        var out: [UInt8] = []
        if let whole = try line(from: &r, seq: seq, into: &out) { return whole }
        return out[...]
    }

    /// Reads the row's `lineColumns` and rebuilds its line in `out` (emptied first), its values
    /// read from `r` as the skeleton's cuts ask for them; a line kept whole is returned as it
    /// sits in the answer instead.
    public func line(from r: inout RowBinaryReader, seq: Int64, into out: inout [UInt8]) throws -> ArraySlice<UInt8>? {
        let whole = try r.bytesOfString()
        let shape = try r.uint64()
        let eventID = try r.bytesOfString(), name = try r.bytesOfString(), user = try r.bytesOfString()
        let flow = try r.bytesOfString(), step = try r.nullableBytesOfString()
        let count = try r.length()
        func bad(_ why: String) -> StoreError {
            StoreError(doing: "reading event seq \(seq)", reason: "the stored line does not rebuild: \(why)", kind: .corrupt)
        }
        guard shape != 0 else {
            guard count == 0 else { throw bad("a whole line with cut values") }
            return whole
        }
        guard let skeleton = skeletons[shape] else { throw bad("shape \(shape) is missing") }
        out.removeAll(keepingCapacity: true)
        var read = 0
        let rebuilt = try skeleton.withUnsafeBufferPointer { sk in
            try LineShape.rebuild(sk, into: &out) { field, out in
                switch field {
                case .eventID: out.append(contentsOf: eventID)
                case .name: out.append(contentsOf: name)
                case .user: out.append(contentsOf: user)
                case .flow: out.append(contentsOf: flow)
                case .step: out.append(contentsOf: step ?? [])
                case .formedTS, .formedID: throw bad("shape \(shape) keeps a value as a form, which only the embedded store writes")
                case .ts, .properties:
                    guard read < count else { throw bad("too few cut values") }
                    out.append(contentsOf: try r.bytesOfString())
                    read += 1
                }
            }
        }
        guard rebuilt else { throw bad("shape \(shape) is not one") }
        guard read == count else { throw bad("too many cut values") }
        return nil
    }

    /// The `event_lines` view: every event row with its line rebuilt by SQL as `line(from:)`
    /// rebuilds it, its shape's skeleton split at its cuts and each cut filled with its
    /// column or the next of `cut_values`. ClickHouse 18.16's lambdas cannot read a String
    /// column, so the values go in as arrays as long as the cuts.
    static let eventLinesView = """
        CREATE VIEW IF NOT EXISTS event_lines AS
        SELECT seq, attempt, input_id, line_no, event_id, user_id, flow, step, event, ts_us, \(rebuiltLine) AS line
        FROM (
            SELECT seq, attempt, input_id, line_no, event_id, user_id, flow, step, event, ts_us, line AS whole, shape,
                   cut_values, splitByChar('\\0', skeleton) AS parts, arrayMap(p -> reinterpretAsUInt8(p), arrayPopFront(parts)) AS codes
            FROM events ANY LEFT JOIN (SELECT id AS shape, any(skeleton) AS skeleton FROM shapes GROUP BY id) USING shape)
        """

    private static let rebuiltLine = """
        if(shape = 0, whole, concat(parts[1], arrayStringConcat(arrayMap(
            (c, k, f, v, p) -> concat(if(c IN (4, 7), v[k], f[c]), substring(p, 2)),
            codes,
            arrayCumSum(arrayMap(c -> c IN (4, 7), codes)),
            arrayResize([[event_id, event, user_id, '', flow, ifNull(step, '')]], length(codes),
                        [event_id, event, user_id, '', flow, ifNull(step, '')]),
            arrayResize([cut_values], length(codes), cut_values),
            arrayPopFront(parts)))))
        """
}
