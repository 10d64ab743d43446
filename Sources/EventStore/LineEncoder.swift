import FunnelModel
import LogFiles
import LineParsing

/// Encodes a line's stored body on the ingest path from its shape's cuts, reusing its
/// buffers, straight onto the rows' bodies (`PendingEvents`).
struct LineEncoder {
    /// Picks each line's cuts and numbers the input's shapes (`ShapeCutter`).
    var cutter = ShapeCutter()
    /// Whether each of the input's shapes (by the parser's number) keeps its time as a form.
    private var formsTime: [Bool] = []

    /// The skeleton the store keeps for a new shape: its event id in the fewest bytes
    /// (`LineShape.Field.formedID`, `EventIDForm`); and for a line funnel parsed itself, its
    /// time as its text's form (`formedTS`: its event's time is the text's, so the text can be
    /// written again from it), where a vendor's line keeps its time text.
    static func storedSkeleton(_ skeleton: [UInt8], native: Bool) -> [UInt8] {
        var out = skeleton
        // 0x00 occurs in a skeleton only as a cut's mark, before its field's code.
        for i in out.indices.dropLast() where out[i] == 0 {
            switch LineShape.Field(rawValue: out[i + 1]) {
            case .eventID: out[i + 1] = LineShape.Field.formedID.rawValue
            case .ts where native: out[i + 1] = LineShape.Field.formedTS.rawValue
            default: break
            }
        }
        return out
    }

    /// Records the store's id of the shape `cutter.cut` found new, and whether its skeleton
    /// keeps the time as a form (`storedSkeleton`).
    mutating func learn(_ id: ShapeCutter.ID?, native: Bool) {
        cutter.learn(id)
        formsTime.append(native)
    }

    /// Whether the input's shape `number` keeps its time as a form.
    func formsTime(shape number: Int) -> Bool { formsTime.indices.contains(number) && formsTime[number] }

    /// Appends to `body` the body for the cuts picked last (`cutter`), given the shape id, the
    /// atom ids of the name and step values and whether the shape keeps its time as a form:
    /// the shape id, then per cut in line order its value's length and bytes (properties, a
    /// vendor's time), its atom id (name, step), its event id's form (`EventIDForm`), or its
    /// time text's form code (0, then its length and bytes, when the text has none).
    /// Written through one pointer into temporary memory, then appended at once.
    func appendBody(shapeID: Int64, nameAtom: Int64, stepAtom: Int64, formsTime: Bool,
                    in b: UnsafeBufferPointer<UInt8>, to body: inout [UInt8]) {
        cutter.withCuts { cuts in
            Self.appendBody(cuts: cuts, shapeID: shapeID, nameAtom: nameAtom, stepAtom: stepAtom, formsTime: formsTime,
                            in: b, to: &body)
        }
    }

    /// `appendBody` for `cuts`.
    private static func appendBody(cuts: UnsafeBufferPointer<LineShape.Cut>, shapeID: Int64, nameAtom: Int64, stepAtom: Int64,
                                   formsTime: Bool, in b: UnsafeBufferPointer<UInt8>, to body: inout [UInt8]) {
        var room = Varint.maxBytes * (1 + 2 * cuts.count)
        for c in cuts where c.field.keepsBytes { room += c.end - c.start }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { out in
            guard let base = out.baseAddress, let line = b.baseAddress else { return }
            var at = base
            func copy(_ c: LineShape.Cut) {
                at += Varint.write(UInt64(c.end - c.start), to: at)
                at.update(from: line + c.start, count: c.end - c.start)
                at += c.end - c.start
            }
            at += Varint.write(UInt64(shapeID), to: at)
            for c in cuts {
                switch c.field {
                case .ts where formsTime:
                    if let form = Timestamp.TextForm.of(UnsafeBufferPointer(start: line + c.start, count: c.end - c.start)) {
                        at += Varint.write(UInt64(form.code), to: at)
                    } else {
                        at += Varint.write(0, to: at)
                        copy(c)
                    }
                case .eventID: EventIDForm.write(UnsafeBufferPointer(start: line + c.start, count: c.end - c.start), to: &at)
                case .ts, .properties, .formedTS, .formedID: copy(c)
                case .name: at += Varint.write(UInt64(nameAtom), to: at)
                case .step: at += Varint.write(UInt64(stepAtom), to: at)
                case .user, .flow: break
                }
            }
            body.append(contentsOf: UnsafeBufferPointer(start: base, count: at - base))
        }
    }

    /// Appends to `body` a body holding the line itself.
    static func appendVerbatim(_ line: UnsafeBufferPointer<UInt8>, to body: inout [UInt8]) {
        body.append(0)
        body.append(contentsOf: line)
    }
}
