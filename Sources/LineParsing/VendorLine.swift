import FunnelModel
import LogFiles
import LogSources

/// A vendor line on its way through the parser: mapped by its source to funnel's own line,
/// which `EventDecoder` decodes, so every later step sees a native envelope while the vendor's
/// line is what is stored and exported.
enum VendorLine {
    /// The shape of a line kept verbatim (`LineKeys.shape`).
    static let verbatimShape: Int32 = -1

    /// The envelope of the line's native line (`cutter.line`; refs into it and
    /// `decoder.scratch`), or why the line is rejected, in the vendor's words.
    static func decode(_ line: UnsafeBufferPointer<UInt8>, cutter: inout SourceCutter,
                       decoder: inout EventDecoder) -> Result<Envelope, Rejection> {
        if let r = cutter.map(line) { return .failure(.vendor(code: r.code, text: r.text, offset: r.offset)) }
        return cutter.line.withUnsafeBufferPointer { decoder.envelope($0) }
    }
}
