import FunnelModel
import LogFiles
import LogSources

/// A vendor line on its way through the parser: mapped by its source to funnel's own line,
/// which `EventDecoder` decodes, so every later step sees a native envelope while the vendor's
/// line is what is stored and exported.
enum VendorLine {
    /// The shape of a line kept verbatim (`LineKeys.shape`).
    static let verbatimShape: Int32 = -1

    /// The envelope of the line's native line (`cutter.line`; refs into it and, when
    /// `decoded`, `decoder.scratch`), or why the line is rejected, in the vendor's words. A
    /// line the cutter wrote without escapes in its envelope takes the cutter's ranges, as the
    /// decoder would find them; any other is decoded.
    static func decode(_ line: UnsafeBufferPointer<UInt8>, cutter: inout SourceCutter,
                       decoder: inout EventDecoder) -> (Result<Envelope, Rejection>, decoded: Bool) {
        if let r = cutter.map(line) { return (.failure(.vendor(code: r.code, text: r.text, offset: r.offset)), false) }
        if let f = cutter.fields { return (.success(envelope(f)), false) }
        return (cutter.withLine { decoder.envelope($0) }, true)
    }

    static func envelope(_ f: SourceCutter.NativeFields) -> Envelope {
        func ref(_ r: Range<Int>) -> StringRef { StringRef(start: Int32(r.lowerBound), end: Int32(r.upperBound), inScratch: false) }
        return Envelope(eventID: ref(f.eventID), name: ref(f.name), userID: ref(f.userID), flow: ref(f.flow), step: f.step.map(ref),
                        time: f.time, timeText: ref(f.timeText), properties: f.properties, context: f.context)
    }

    /// Appends to `cuts` where the line at `lineStart` of its batch is cut for its shape:
    /// the values its native line copies as written (the store gives them back from the
    /// row's atoms), its time and id as written, and the rest no field reads as a value a
    /// shape could hold (`SourceCutter.otherValues`), in line order. False, with nothing
    /// appended, when two would overlap.
    static func appendCuts(_ f: SourceCutter.VendorFields, others: [Range<Int>], lineStart: Int,
                           to cuts: inout [LineShape.Cut]) -> Bool {
        LineShape.append(eventID: f.eventID, name: f.name, user: f.userID, ts: f.time, flow: f.flow, step: f.step,
                         properties: nil, runs: others, offset: lineStart, to: &cuts)
    }
}

/// A vendor line's steps in the parser, called on the parser's optional cutter in place
/// (`cutter?.decodeLine`): mutating, as a call of a non-mutating method through an optional
/// may copy the whole cutter first.
extension SourceCutter {
    /// `VendorLine.decode` of `line`.
    mutating func decodeLine(_ line: UnsafeBufferPointer<UInt8>, decoder: inout EventDecoder) -> (Result<Envelope, Rejection>, decoded: Bool) {
        VendorLine.decode(line, cutter: &self, decoder: &decoder)
    }

    /// Appends the native line of the line decoded last to `bytes`.
    mutating func appendLine(to bytes: inout [UInt8]) {
        withLine { bytes.append(contentsOf: $0) }
    }

    /// `VendorLine.appendCuts` of the line decoded last, at `lineStart` of its batch: where
    /// its cuts went in `cuts`, nil when it has none (it is stored verbatim).
    mutating func appendCuts(lineStart: Int, to cuts: inout [LineShape.Cut]) -> Range<Int32>? {
        guard let f = vendorFields else { return nil }
        let first = cuts.count
        guard VendorLine.appendCuts(f, others: otherValues, lineStart: lineStart, to: &cuts) else { return nil }
        return Int32(first)..<Int32(cuts.count)
    }
}
