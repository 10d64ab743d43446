import LogFiles

/// A stream read to its end or to its first error.
public struct ReadResult {
    public var bytes: [UInt8] = []
    public var error: InputError?
}

/// Reads the stream `open` gives to its end, in reads of 4 KiB; anything thrown but an
/// `InputError` is a failure.
public func readAll(_ path: String, open: (String) throws -> ByteStream) -> ReadResult {
    var result = ReadResult()
    do {
        let stream = try open(path)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
            fuzzCheck(n >= 0 && n <= buffer.count, "read returned \(n) for a buffer of \(buffer.count)")
            if n == 0 { break }
            result.bytes += buffer[0..<n]
        }
    } catch let e as InputError {
        result.error = e
    } catch {
        fuzzFailure("ByteStream threw \(type(of: error)), not InputError: \(error)")
    }
    return result
}

/// Reads `path` through `LineReader` and checks its lines against `stream`, the same stream
/// read directly: as many lines as newlines (one more for an unterminated tail), each line's
/// bytes those of the stream at its offset (less a `\r` before the newline), none longer than
/// the limit.
public func checkLines(_ path: String, stream: ReadResult, open: (String) throws -> LineReader) {
    var lines = 0
    var failed = false
    do {
        let reader = try open(path)
        let maxLineLength = reader.maxLineLength
        try reader.forEachLine { info, bytes in
            lines += 1
            fuzzCheck(info.number == lines, "line \(lines) numbered \(info.number)")
            fuzzCheck(bytes.count == min(info.length, maxLineLength), "line \(lines): \(bytes.count) bytes for length \(info.length)")
            fuzzCheck(info.isOversized == (info.length > maxLineLength), "line \(lines): oversized flag wrong")
            fuzzCheck(!bytes.contains(0x0A), "line \(lines) holds a newline")
            let start = Int(info.offset)
            // Before a fault the reader delivers the complete lines of the bytes the stream
            // gave: every line lies within them.
            fuzzCheck(start + bytes.count <= stream.bytes.count, "line \(lines) at \(start) runs past the stream's bytes")
            fuzzCheck(stream.holds(bytes, at: start) || (lines == 1 && stream.startsWithBOM && stream.holds(bytes, at: start + 3)),
                      "line \(lines) at \(start) differs from the stream's bytes")
        }
    } catch is InputError {
        failed = true
    } catch {
        fuzzFailure("LineReader threw \(type(of: error)), not InputError: \(error)")
    }
    fuzzCheck(failed == (stream.error != nil), "LineReader failed: \(failed), the direct read failed: \(stream.error != nil)")
    if !failed {
        // A byte order mark opening the stream belongs to no line.
        let text = stream.startsWithBOM ? stream.bytes.dropFirst(3) : stream.bytes[...]
        let newlines = text.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        let tail = text.last.map { $0 != 0x0A } ?? false
        fuzzCheck(lines == newlines + (tail ? 1 : 0), "\(lines) lines for \(newlines) newlines (tail: \(tail))")
    }
}

extension ReadResult {
    /// A UTF-8 byte order mark opens the stream: the line reader may leave it out of line 1.
    var startsWithBOM: Bool { bytes.starts(with: [0xEF, 0xBB, 0xBF]) }

    /// True when `line` is the stream's bytes at `offset`.
    func holds(_ line: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        offset >= 0 && offset + line.count <= bytes.count && bytes[offset..<(offset + line.count)].elementsEqual(line)
    }
}
