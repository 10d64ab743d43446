import CDeflate
import CZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What went wrong while reading or decompressing an input, and where.
public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The file cannot be opened or read.
        case unreadable
        /// The gzip stream ends before its last member is complete.
        case truncated
        /// The gzip stream holds bytes that are not valid deflate data or fail their check.
        case corrupt
    }

    public var kind: Kind
    public var path: String
    /// Offset in the file (compressed bytes) where the fault was found.
    public var offset: Int64
    public var reason: String

    public init(kind: Kind, path: String, offset: Int64, reason: String) {
        self.kind = kind
        self.path = path
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        switch kind {
        case .unreadable: return "\(path): cannot read: \(reason)"
        case .truncated, .corrupt: return "\(path): byte \(offset): \(kind.rawValue) gzip stream: \(reason)"
        }
    }
}

/// Reads a file (or standard input) as a stream of bytes, decompressing gzip when the data
/// starts with the gzip magic number. Every member of a multi-member gzip file is read.
/// Memory stays bounded by the chunk size and the member limit, whatever the file size.
///
/// A member that lies whole in the input buffer and whose bytes fit `memberLimit` is
/// decompressed in one call by libdeflate (collectors write members of about 100 KiB, and one
/// call does the same work as zlib's stream in less time). The first member that does not fit,
/// or that libdeflate rejects, is streamed through zlib from its first byte, and so is every
/// member after it: a corrupt or truncated member gives zlib's error, at its offset, after the
/// bytes before the fault, exactly as without the fast path.
public final class ByteStream {
    public let path: String
    private let fd: Int32
    private let ownsFD: Bool
    private var input: [UInt8]
    private var inputStart = 0
    private var inputEnd = 0
    /// Compressed bytes consumed from the file before `input[inputStart]`.
    private var fileOffset: Int64 = 0
    private var sawEOF = false
    private var stream = z_stream()
    private var inflating = false
    private var inflateReady = false
    private var started = false
    private var memberOpen = false
    private var finished = false
    private let chunkSize: Int
    /// Whole-member decompression (see the type's comment); nil until the first member.
    private var decompressor: OpaquePointer?
    private let memberLimit: Int
    private var staged: UnsafeMutableRawPointer?
    private var stagedStart = 0
    private var stagedEnd = 0
    /// False once a member did not fit or failed: zlib streams the rest.
    private var wholeMembers = true
    /// Bytes read from the file so far (compressed size for gzip).
    public private(set) var bytesRead: Int64 = 0
    /// True once the input was found to be gzip.
    public private(set) var isGzip = false
    /// Gzip members completed so far.
    public private(set) var members = 0
    /// Of `members`, those decompressed whole by libdeflate.
    public private(set) var wholeMembersRead = 0

    /// Opens `path`; `-` is standard input. `memberLimit` is the largest member (uncompressed)
    /// decompressed in one call; 0 streams every member through zlib.
    public init(path: String, chunkSize: Int = Tuning.readChunk, memberLimit: Int = Tuning.wholeMemberBytes) throws {
        self.path = path
        self.chunkSize = chunkSize
        self.memberLimit = memberLimit
        wholeMembers = memberLimit > 0
        self.input = [UInt8](repeating: 0, count: chunkSize)
        if path == "-" {
            fd = 0
            ownsFD = false
        } else {
            let f = open(path, O_RDONLY)
            guard f >= 0 else {
                throw InputError(kind: .unreadable, path: path, offset: 0, reason: String(cString: strerror(errno)))
            }
            fd = f
            ownsFD = true
        }
    }

    deinit {
        if inflateReady { inflateEnd(&stream) }
        if let decompressor { libdeflate_free_decompressor(decompressor) }
        staged?.deallocate()
        if ownsFD { close(fd) }
    }

    private func fill() throws {
        if inputStart > 0 {
            let remaining = inputEnd - inputStart
            if remaining > 0 {
                input.withUnsafeMutableBufferPointer { buf in
                    guard let base = buf.baseAddress else { return }
                    memmove(base, base + inputStart, remaining)
                }
            }
            fileOffset += Int64(inputStart)
            inputStart = 0
            inputEnd = remaining
        }
        guard !sawEOF, inputEnd < input.count else { return }
        let n = input.withUnsafeMutableBufferPointer { buf -> Int in
            guard let base = buf.baseAddress else { return 0 }
            var r: Int
            repeat { r = Glibc.read(fd, base + inputEnd, buf.count - inputEnd) } while r < 0 && errno == EINTR
            return r
        }
        if n < 0 {
            throw InputError(kind: .unreadable, path: path, offset: fileOffset + Int64(inputEnd),
                             reason: String(cString: strerror(errno)))
        }
        if n == 0 { sawEOF = true }
        inputEnd += n
        bytesRead += Int64(n)
    }

    /// Decompresses the member at `inputStart` into `staged` in one call; false, with nothing
    /// consumed and the fast path off for the rest of the stream, when it is not whole in
    /// `input`, does not fit `staged`, or fails (zlib then streams it and reports the fault).
    private func decompressWholeMember() throws -> Bool {
        if !sawEOF && inputEnd - inputStart < input.count / 2 { try fillAll() }
        if wholeMember() { return true }
        // The member may run past what the buffer held: once more with the buffer full.
        if !sawEOF && (inputStart > 0 || inputEnd < input.count) {
            try fillAll()
            if wholeMember() { return true }
        }
        wholeMembers = false
        return false
    }

    /// Reads until `input` is full (its unread bytes moved to the front) or the file ends.
    private func fillAll() throws {
        repeat { try fill() } while !sawEOF && inputEnd < input.count
    }

    private func wholeMember() -> Bool {
        if decompressor == nil {
            decompressor = libdeflate_alloc_decompressor()
            staged = UnsafeMutableRawPointer.allocate(byteCount: memberLimit, alignment: 16)
        }
        guard let decompressor, let staged else { return false }
        var consumed = 0
        var produced = 0
        let available = inputEnd - inputStart
        let result = input.withUnsafeBufferPointer { src -> libdeflate_result in
            guard let base = src.baseAddress else { return LIBDEFLATE_BAD_DATA }
            return libdeflate_gzip_decompress_ex(decompressor, base + inputStart, available, staged, memberLimit,
                                                 &consumed, &produced)
        }
        guard result == LIBDEFLATE_SUCCESS else { return false }
        inputStart += consumed
        members += 1
        wholeMembersRead += 1
        stagedStart = 0
        stagedEnd = produced
        return true
    }

    /// Fills `buffer` with the next decompressed bytes; returns how many (0 at the end).
    /// Throws `InputError` for a truncated or corrupt gzip stream: the bytes returned before
    /// the error are good.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !finished, let out = buffer.baseAddress, buffer.count > 0 else { return 0 }
        if !started {
            while inputEnd < 2 && !sawEOF { try fill() }
            started = true
            isGzip = inputEnd >= 2 && input[0] == 0x1f && input[1] == 0x8b
        }
        if !isGzip {
            if inputStart == inputEnd { try fill() }
            let n = min(buffer.count, inputEnd - inputStart)
            if n == 0 { finished = true; return 0 }
            input.withUnsafeBufferPointer { src in
                if let base = src.baseAddress { memcpy(out, base + inputStart, n) }
            }
            inputStart += n
            return n
        }
        while true {
            if stagedStart < stagedEnd, let staged {
                let n = min(buffer.count, stagedEnd - stagedStart)
                memcpy(out, staged + stagedStart, n)
                stagedStart += n
                return n
            }
            if !memberOpen {
                // Between members: skip nothing but look for the next member's header.
                if inputStart == inputEnd { try fill() }
                if inputStart == inputEnd && sawEOF { finished = true; return 0 }
                if wholeMembers, try decompressWholeMember() { continue }
                if !inflateReady {
                    stream = z_stream()
                    guard funnel_inflateInit2(&stream, 16 + MAX_WBITS) == Z_OK else {
                        throw InputError(kind: .corrupt, path: path, offset: fileOffset + Int64(inputStart),
                                         reason: "zlib could not start inflating")
                    }
                    inflateReady = true
                } else {
                    inflateReset(&stream)
                }
                memberOpen = true
            }
            if inputStart == inputEnd { try fill() }
            let available = inputEnd - inputStart
            let result: Int32 = input.withUnsafeMutableBufferPointer { src in
                stream.next_in = src.baseAddress.map { $0 + inputStart }
                stream.avail_in = UInt32(available)
                stream.next_out = out.assumingMemoryBound(to: UInt8.self)
                stream.avail_out = UInt32(min(buffer.count, Int(UInt32.max)))
                return inflate(&stream, Z_NO_FLUSH)
            }
            let consumed = available - Int(stream.avail_in)
            let produced = buffer.count - Int(stream.avail_out)
            inputStart += consumed
            switch result {
            case Z_STREAM_END:
                memberOpen = false
                members += 1
                if produced > 0 { return produced }
            case Z_OK:
                if produced > 0 { return produced }
            case Z_BUF_ERROR:
                if produced > 0 { return produced }
                if sawEOF && inputStart == inputEnd {
                    finished = true
                    throw InputError(kind: .truncated, path: path, offset: fileOffset + Int64(inputStart),
                                     reason: "the stream ends inside gzip member \(members + 1)")
                }
            default:
                finished = true
                let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(result)"
                throw InputError(kind: .corrupt, path: path, offset: fileOffset + Int64(inputStart),
                                 reason: "\(message) in gzip member \(members + 1)")
            }
            if sawEOF && inputStart == inputEnd && memberOpen && consumed == 0 && produced == 0 {
                finished = true
                throw InputError(kind: .truncated, path: path, offset: fileOffset + Int64(inputStart),
                                 reason: "the stream ends inside gzip member \(members + 1)")
            }
        }
    }
}

/// Writes gzip: each `writeMember` call adds one complete gzip member, as collectors that
/// append batches to a daily file do. The file is the concatenation of the members. With
/// `replacing`, the members go to a `ReplacingFile`, which `commit()` renames over `path`:
/// until then an old file of that name stays whole.
public final class GzipWriter {
    public let path: String
    private let fd: Int32
    private let replacement: ReplacingFile?
    private var out: [UInt8]
    private let level: Int32

    public init(replacing path: String, level: Int32 = 6) throws {
        self.path = path
        self.level = level
        out = [UInt8](repeating: 0, count: Tuning.gzipOutputBytes)
        replacement = try ReplacingFile(path: path)
        fd = -1
    }

    /// Gives the members written the file's name (`replacing`); nothing otherwise.
    public func commit() throws { try replacement?.commit() }

    public init(path: String, level: Int32 = 6, append: Bool = false) throws {
        self.path = path
        self.level = level
        out = [UInt8](repeating: 0, count: Tuning.gzipOutputBytes)
        let flags = O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC)
        let f = open(path, flags, 0o644)
        guard f >= 0 else {
            throw InputError(kind: .unreadable, path: path, offset: 0, reason: "cannot create: " + String(cString: strerror(errno)))
        }
        fd = f
        replacement = nil
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Compresses `bytes` as one gzip member and appends it to the file.
    public func writeMember(_ bytes: [UInt8]) throws {
        var stream = z_stream()
        guard funnel_deflateInit2(&stream, level, 16 + MAX_WBITS) == Z_OK else {
            throw InputError(kind: .corrupt, path: path, offset: 0, reason: "zlib could not start deflating")
        }
        defer { deflateEnd(&stream) }
        var input = bytes
        try input.withUnsafeMutableBufferPointer { src in
            stream.next_in = src.baseAddress
            stream.avail_in = UInt32(src.count)
            var status: Int32 = Z_OK
            while status != Z_STREAM_END {
                let produced: Int = out.withUnsafeMutableBufferPointer { dst in
                    stream.next_out = dst.baseAddress
                    stream.avail_out = UInt32(dst.count)
                    status = deflate(&stream, Z_FINISH)
                    return dst.count - Int(stream.avail_out)
                }
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    throw InputError(kind: .corrupt, path: path, offset: 0, reason: "deflate failed (\(status))")
                }
                try writeAll(produced)
            }
        }
    }

    public func writeMember(_ text: String) throws { try writeMember(Array(text.utf8)) }

    private func writeAll(_ count: Int) throws {
        if let replacement { return try out.withUnsafeBytes { try replacement.write(UnsafeRawBufferPointer(rebasing: $0[0..<count])) } }
        if let reason = out.withUnsafeBytes({ EventLog.writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<count])) }) {
            throw InputError(kind: .unreadable, path: path, offset: 0, reason: "cannot write: " + reason)
        }
    }
}
