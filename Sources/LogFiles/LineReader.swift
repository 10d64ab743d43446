#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One line of an input, as `LineReader` delivers it.
public struct LineInfo: Sendable, Hashable {
    /// 1-based line number.
    public var number: Int
    /// Offset of the line's first byte in the uncompressed stream (0-based).
    public var offset: Int64
    /// The full length of the line in bytes, without its `\n` or `\r\n`.
    public var length: Int
    /// True when `length` is over `LineReader.maxLineLength`; only the first
    /// `maxLineLength` bytes are delivered.
    public var isOversized: Bool
}

/// Splits a `ByteStream` into lines, after a UTF-8 byte order mark at the start, which no
/// line or count includes. A final line without a newline still counts; a `\r`
/// before the `\n` is dropped (CRLF tolerated). Lines over `maxLineLength` (1 MiB) are
/// delivered truncated to that length with `isOversized` set, so the reader's memory stays
/// bounded. When the stream fails (truncated or corrupt gzip), the complete lines before the
/// fault have been delivered; the bytes of an unfinished last line are counted in
/// `droppedTailBytes` and the error is rethrown.
public final class LineReader {
    public static let maxLineLength = 1 << 20

    public let stream: ByteStream
    public let maxLineLength: Int
    /// The line buffer: owned memory, so the per-line work is pointer arithmetic, with no
    /// retain and release around each line's access.
    private let storage: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private let chunk: Int
    public private(set) var linesRead = 0
    /// Uncompressed bytes consumed so far.
    public private(set) var bytesConsumed: Int64 = 0
    /// Bytes of an incomplete line dropped because the stream failed.
    public private(set) var droppedTailBytes = 0

    public init(stream: ByteStream, maxLineLength: Int = LineReader.maxLineLength, chunk: Int = Tuning.lineChunk) {
        self.stream = stream
        self.maxLineLength = maxLineLength
        self.chunk = chunk
        capacity = max(chunk, 64) * 2 + maxLineLength
        // Left uninitialized: only bytes read into it are read, so pages a small input never
        // reaches are never touched.
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// Calls `body` for every line, in order. The bytes are only valid during the call.
    public func forEachLine(_ body: (LineInfo, UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        var start = 0          // first byte of the current line in `buffer`
        var end = 0            // end of valid data in `buffer`
        var scan = 0           // where the newline search resumes
        var lineOffset: Int64 = 0
        // An oversized line: its first `maxLineLength` bytes, the bytes seen so far, the last one.
        var oversized = false
        var prefix: [UInt8] = []
        var seen = 0
        var lastByte: UInt8 = 0
        let base = storage
        let capacity = self.capacity
        let maxLength = maxLineLength

        func emit(_ bytes: UnsafeBufferPointer<UInt8>, length: Int, rawLength: Int, isOversized: Bool) throws {
            linesRead += 1
            try body(LineInfo(number: linesRead, offset: lineOffset, length: length, isOversized: isOversized), bytes)
            lineOffset += Int64(rawLength) + 1
            bytesConsumed = lineOffset
        }

        /// Finishes the line whose bytes end at `stop` (exclusive) in the buffer.
        func finishLine(at stop: Int) throws {
            if oversized {
                let raw = seen + (stop - start)
                let last = stop > start ? base[stop - 1] : lastByte
                let length = raw - (last == 0x0D ? 1 : 0)
                try prefix.withUnsafeBufferPointer { try emit($0, length: length, rawLength: raw, isOversized: true) }
                oversized = false
                prefix = []
                seen = 0
                return
            }
            let raw = stop - start
            let length = raw - (raw > 0 && base[stop - 1] == 0x0D ? 1 : 0)
            let oversize = length > maxLength
            let shown = oversize ? maxLength : length
            try emit(UnsafeBufferPointer(start: base + start, count: shown), length: length,
                     rawLength: raw, isOversized: oversize)
        }

        var ended = false

        /// Appends the stream's next bytes to the buffer; false at its end.
        func readMore() throws -> Bool {
            let want = min(chunk, capacity - end)
            let n: Int
            do {
                n = try stream.read(into: UnsafeMutableRawBufferPointer(start: base + end, count: want))
            } catch {
                droppedTailBytes = (end - start) + (oversized ? seen : 0)
                throw error
            }
            if n == 0 { ended = true }
            end += n
            return n > 0
        }

        // A UTF-8 byte order mark before the first line (RFC 8259 lets a reader skip it)
        // is no part of any line: the first line's offset is after it.
        var atStart = true
        while true {
            if atStart {
                if end < 3 && !ended {
                    if try readMore() { continue }
                }
                atStart = false
                if end >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF {
                    start = 3
                    scan = 3
                    lineOffset = 3
                }
            }
            while scan < end {
                guard let hit = memchr(base + scan, 0x0A, end - scan) else { scan = end; break }
                let nl = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
                try finishLine(at: nl)
                start = nl + 1
                scan = start
            }
            // An unfinished line longer than the limit: keep its prefix, drop the rest.
            if oversized {
                if end > start {
                    seen += end - start
                    lastByte = base[end - 1]
                    start = end
                    scan = end
                }
            } else if end - start > maxLength + 1 {
                prefix = Array(UnsafeBufferPointer(start: base + start, count: maxLength))
                seen = end - start
                lastByte = base[end - 1]
                oversized = true
                start = end
                scan = end
            }
            if start > 0 {
                let remaining = end - start
                if remaining > 0 { memmove(base, base + start, remaining) }
                end = remaining
                scan -= start
                start = 0
            }
            let more = ended ? false : try readMore()
            if !more {
                let unterminated = oversized || end > start
                if unterminated { try finishLine(at: end) }
                bytesConsumed = lineOffset - (unterminated ? 1 : 0)
                return
            }
        }
    }
}
