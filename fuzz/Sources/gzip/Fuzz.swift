import LogFiles
import FuzzSupport

/// The gzip reader (`ByteStream`) on a file holding the input, read to the end directly and
/// through `LineReader`, in two configurations: whole members through libdeflate (up to
/// 32 KiB, so that larger ones are streamed) with 4 KiB lines, and streaming every member
/// (igzip, zlib for a member igzip does not pass) from 64-byte reads with 16-byte lines (smaller than the defaults, for speed: the
/// code paths are the same). Properties: nothing but an `InputError` is thrown; when both
/// configurations read the stream they give the same bytes; the lines are the stream
/// split at its newlines (see `checkLines`); both configurations give the same bytes and the
/// same error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGzip(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let path = FuzzFile.write(fuzzBytes(data, size))
    let fast = readAll(path) { try ByteStream(path: $0, chunkSize: 1 << 14, memberLimit: 1 << 15) }
    let streamed = readAll(path) { try ByteStream(path: $0, chunkSize: 64, memberLimit: 0) }
    // No byte of a member that fails its check is handed on, so both read the same bytes and
    // stop at the same fault, whatever the path and the read sizes.
    fuzzCheck(fast.bytes == streamed.bytes,
              "libdeflate and zlib read different bytes (\(fast.bytes.count) and \(streamed.bytes.count))")
    fuzzCheck(fast.error == streamed.error,
              "libdeflate and zlib stop differently: \(String(describing: fast.error)) and \(String(describing: streamed.error))")
    checkLines(path, stream: fast) {
        LineReader(stream: try ByteStream(path: $0, chunkSize: 1 << 14, memberLimit: 1 << 15), maxLineLength: 1 << 12, chunk: 1 << 12)
    }
    checkLines(path, stream: streamed) {
        LineReader(stream: try ByteStream(path: $0, chunkSize: 64, memberLimit: 0), maxLineLength: 16, chunk: 8)
    }
    return 0
}

/// libFuzzer runs the harness above.
@main
enum GzipFuzzer {
    static func main() { runFuzzer(fuzzGzip) }
}
