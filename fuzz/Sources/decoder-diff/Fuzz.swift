import LogFiles
import Foundation
import FuzzSupport

/// The event decoder against Foundation's `JSONSerialization` (with `.fragmentsAllowed`), on
/// the input as one line. Properties: when the decoder rejects the line as not JSON or not
/// UTF-8, the plain parser rejects it too; when the plain parser rejects it, the decoder
/// quarantines it, as not JSON or not UTF-8 (a syntax fault anywhere outranks the event's
/// own checks). The same holds for `EventDecoder.jsonValue`.
///
/// Where the two parsers differ by design, the input is normalised or a direction skipped:
/// - a UTF-8 byte order mark opening the input is removed for both (the plain parser skips
///   it; funnel's line reader drops it at a file's start, the decoder never sees it);
/// - NUL, 0xFE or 0xFF in the first four bytes: skipped (the plain parser then reads
///   UTF-16 or UTF-32, which funnel's UTF-8 lines never are);
/// - a comma before `]` or `}`: only the second direction (the plain parser accepts a
///   trailing comma, RFC 8259 and the decoder do not);
/// - a `\u` escape of a surrogate (D800–DFFF): only the first direction (the decoder accepts
///   a lone one, decoded to U+FFFD, as Python and Node do; the plain parser rejects it);
/// - a number the plain parser calls "not representable" (past Double's range): only the
///   first direction (the decoder keeps a number's text and accepts it);
/// - 512 or more `[` and `{`: skipped (both limit nesting to about 512 levels, each in its own
///   way). Duplicate keys are JSON to both.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoderDiff(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var line = fuzzBytes(data, size)
    if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
    if line.prefix(4).contains(where: { $0 == 0x00 || $0 == 0xFE || $0 == 0xFF }) { return 0 }
    if line.reduce(0, { $0 + ($1 == 0x5B || $1 == 0x7B ? 1 : 0) }) >= 512 { return 0 }

    let ours = EventDecoder.decode(bytes: line)
    let oursNotJSON: Bool
    switch ours {
    case .failure(.notJSON), .failure(.invalidUTF8): oursNotJSON = true
    default: oursNotJSON = false
    }
    let valueNotJSON = line.withUnsafeBufferPointer { EventDecoder.jsonValue($0) == nil }
    var plainRejects = false
    var plainReason = ""
    do {
        _ = try JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed])
    } catch {
        plainRejects = true
        plainReason = "\(error)"
    }

    if oursNotJSON || valueNotJSON, !hasTrailingComma(line) {
        fuzzCheck(plainRejects, "the decoder finds no JSON (\(ours), jsonValue nil: \(valueNotJSON)), JSONSerialization reads it")
    }
    if plainRejects, !hasSurrogateEscape(line), !plainReason.contains("not representable") {
        fuzzCheck(oursNotJSON, "JSONSerialization rejects it (\(plainReason)), the decoder gives \(ours)")
        fuzzCheck(valueNotJSON, "JSONSerialization rejects it (\(plainReason)), jsonValue reads it")
    }
    return 0
}

/// A comma, then only whitespace, then `]` or `}` (in a string too: a rare false positive
/// only skips a check).
func hasTrailingComma(_ b: [UInt8]) -> Bool {
    var afterComma = false
    for c in b {
        switch c {
        case 0x2C: afterComma = true
        case 0x20, 0x09, 0x0A, 0x0D: continue
        case 0x5D, 0x7D: if afterComma { return true }; afterComma = false
        default: afterComma = false
        }
    }
    return false
}

/// A `\u` escape of a UTF-16 surrogate, `\uD800` to `\uDFFF` in either case (after an escaped
/// backslash too: a rare false positive only skips a check).
func hasSurrogateEscape(_ b: [UInt8]) -> Bool {
    guard b.count >= 4 else { return false }
    for i in 0..<(b.count - 3) where b[i] == 0x5C && (b[i + 1] == 0x75) && (b[i + 2] | 0x20) == 0x64 {
        let c = b[i + 3] | 0x20
        if (0x38...0x39).contains(c) || (0x61...0x66).contains(c) { return true }
    }
    return false
}

@main
enum DecoderDiffFuzzer {
    static func main() { runFuzzer(fuzzDecoderDiff) }
}
