import CZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes gzip: each `writeMember` call adds one complete gzip member, as collectors that
/// append batches to a daily file do (`startMember`, `writePart` and `finishMember` write one
/// member in parts). The file is the concatenation of the members. With
/// `replacing`, the members go to a `ReplacingFile`, which `commit()` renames over `path`:
/// until then an old file of that name stays whole.
public final class GzipWriter {
    public let path: String
    private let fd: Int32
    private let replacement: ReplacingFile?
    private var out: [UInt8]
    private let level: Int32
    /// The member being written, between `startMember` and its end.
    private var stream = z_stream()
    private var inMember = false

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

    deinit {
        if inMember { deflateEnd(&stream) }
        if fd >= 0 { close(fd) }
    }

    /// Compresses `bytes` as one gzip member and appends it to the file.
    public func writeMember(_ bytes: [UInt8]) throws {
        try startMember()
        try feed(bytes, Z_FINISH)
    }

    /// Starts one gzip member that `writePart` feeds and `finishMember` ends, for a member too
    /// large to hold: the same bytes as one `writeMember` of the parts joined (zlib's output
    /// does not depend on how its input is cut).
    public func startMember() throws {
        if inMember { deflateEnd(&stream) }
        stream = z_stream()
        guard funnel_deflateInit2(&stream, level, 16 + MAX_WBITS) == Z_OK else {
            inMember = false
            throw InputError(kind: .corrupt, path: path, offset: 0, reason: "zlib could not start deflating")
        }
        inMember = true
    }

    /// Compresses `bytes` into the member `startMember` began.
    public func writePart(_ bytes: [UInt8]) throws { try feed(bytes, Z_NO_FLUSH) }

    /// Ends the member `startMember` began.
    public func finishMember() throws { try feed([], Z_FINISH) }

    /// Deflates `bytes` into the open member and writes what zlib gives; `Z_FINISH` ends the
    /// member. A failure ends it too.
    private func feed(_ bytes: [UInt8], _ flush: Int32) throws {
        guard inMember else { throw InputError(kind: .corrupt, path: path, offset: 0, reason: "no gzip member is open") }
        do {
            try bytes.withUnsafeBufferPointer { src in
                stream.next_in = UnsafeMutablePointer(mutating: src.baseAddress)
                stream.avail_in = UInt32(src.count)
                while true {
                    var status: Int32 = Z_OK
                    let produced: Int = out.withUnsafeMutableBufferPointer { dst in
                        stream.next_out = dst.baseAddress
                        stream.avail_out = UInt32(dst.count)
                        status = deflate(&stream, flush)
                        return dst.count - Int(stream.avail_out)
                    }
                    guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                        throw InputError(kind: .corrupt, path: path, offset: 0, reason: "deflate failed (\(status))")
                    }
                    try writeAll(produced)
                    // Done when the member ended, or, within it, when zlib took all the input
                    // and had room to spare.
                    if flush == Z_FINISH ? status == Z_STREAM_END : stream.avail_out != 0 { break }
                }
            }
        } catch {
            endMember()
            throw error
        }
        if flush == Z_FINISH { endMember() }
    }

    private func endMember() {
        deflateEnd(&stream)
        inMember = false
    }

    public func writeMember(_ text: String) throws { try writeMember(Array(text.utf8)) }

    private func writeAll(_ count: Int) throws {
        if let replacement { return try out.withUnsafeBytes { try replacement.write(UnsafeRawBufferPointer(rebasing: $0[0..<count])) } }
        if let reason = out.withUnsafeBytes({ LogFiles.writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<count])) }) {
            throw InputError(kind: .unreadable, path: path, offset: 0, reason: "cannot write: " + reason)
        }
    }
}
