import LogFiles
import FunnelModel
import FuzzSupport

/// One decoder and cache kept from input to input, as an ingest keeps them from line to line.
nonisolated(unsafe) var decoder = EventDecoder()
nonisolated(unsafe) var cache = EventCache()

/// The event decoder on the input as one line. Properties: a fresh decoder
/// (`decode(bytes:)`) and the reused one, with and without the cache, give the same verdict
/// and the same event; a rejection's offset lies in the line; the line is JSON
/// (`jsonValue`) exactly when the rejection, if any, is not about JSON or UTF-8; an accepted
/// line has its ids.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let line = fuzzBytes(data, size)
    let fresh = EventDecoder.decode(bytes: line)
    line.withUnsafeBufferPointer { b in
        switch decoder.envelope(b) {
        case .failure(let r):
            fuzzCheck(fresh == .failure(r), "reused decoder: \(r), fresh: \(fresh)")
        case .success(let env):
            let plain = decoder.event(from: env, in: b)
            let shared = decoder.event(from: env, in: b, cache: &cache)
            fuzzCheck(fresh == .success(plain), "reused decoder: \(plain), fresh: \(fresh)")
            fuzzCheck(shared == plain, "through the cache: \(shared), without: \(plain)")
        }
        let isJSON = EventDecoder.jsonValue(b) != nil
        switch fresh {
        case .success(let e):
            fuzzCheck(isJSON, "accepted, but jsonValue finds no JSON")
            fuzzCheck(!e.id.isEmpty && !e.userID.isEmpty, "accepted with an empty id: \(e)")
        case .failure(.invalidUTF8(let offset)):
            fuzzCheck(!isJSON, "invalid UTF-8 at \(offset), but jsonValue reads it")
            fuzzCheck(offset >= 0 && offset < line.count, "invalid UTF-8 at \(offset) of \(line.count) bytes")
        case .failure(.notJSON(let column, let detail)):
            fuzzCheck(!isJSON, "not JSON at column \(column) (\(detail)), but jsonValue reads it")
            fuzzCheck(column >= 1 && column <= line.count + 1, "not JSON at column \(column) of \(line.count) bytes")
        case .failure(let r):
            fuzzCheck(isJSON, "rejected as \(r), a JSON line's fault, but jsonValue finds no JSON")
        }
    }
    return 0
}

@main
enum DecoderFuzzer {
    static func main() { runFuzzer(fuzzDecoder) }
}
