import LogFiles
import FuzzSupport

/// The line reader over a plain (not gzip) file. The input's first byte picks the line limit
/// and the reader's chunk (small ones reach the paths a 1 MiB line takes, faster); the rest is
/// the file. Properties: those of `checkLines` (lines are the stream split at its newlines,
/// with the limit kept).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLines(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    guard let setting = input.first else { return 0 }
    let content = Array(input.dropFirst())
    // Gzip content is the gzip harness's.
    if content.starts(with: [0x1F, 0x8B]) { return 0 }
    let maxLineLength = [1, 2, 3, 7, 16, 100, 4096, 1 << 16][Int(setting & 7)]
    let chunk = [1, 2, 5, 16, 64, 1000, 4096, 1 << 16][Int((setting >> 3) & 7)]
    let path = FuzzFile.write(content)
    let stream = readAll(path) { try ByteStream(path: $0, chunkSize: 4096) }
    checkLines(path, stream: stream) {
        LineReader(stream: try ByteStream(path: $0, chunkSize: 4096), maxLineLength: maxLineLength, chunk: chunk)
    }
    return 0
}

@main
enum LinesFuzzer {
    static func main() { runFuzzer(fuzzLines) }
}
