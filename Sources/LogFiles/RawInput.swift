#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a `ByteStream`'s bytes come from: a file or standard input (`FileInput`), or an
/// entry of a zip archive (`ZipEntryInput`), read in order and, to check a member before it
/// is streamed (`MemberCheck`), at an offset.
protocol RawInput: AnyObject {
    /// The next bytes, in order; 0 at the end. Throws `InputError`.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// Bytes from `offset` (fewer than asked is no end; 0 is); nil when the input cannot be
    /// read at an offset (a pipe).
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int?
}

/// A file, or standard input (`-`).
final class FileInput: RawInput {
    let path: String
    private let fd: Int32
    private let ownsFD: Bool
    private var position: Int64 = 0

    /// True for a regular file (not standard input, a pipe or a device): one that can be read
    /// at offsets beside the stream, and read again from its start.
    let isRegularFile: Bool

    init(path: String) throws {
        self.path = path
        if path == "-" {
            fd = 0
            ownsFD = false
            isRegularFile = false
        } else {
            let f = open(path, O_RDONLY)
            guard f >= 0 else {
                throw InputError(kind: .unreadable, path: path, offset: 0, reason: String(cString: strerror(errno)))
            }
            fd = f
            ownsFD = true
            var st = stat()
            isRegularFile = fstat(f, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
        }
    }

    deinit { if ownsFD { close(fd) } }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var n: Int
        repeat { n = Glibc.read(fd, buffer.baseAddress, buffer.count) } while n < 0 && errno == EINTR
        if n < 0 { throw InputError(kind: .unreadable, path: path, offset: position, reason: String(cString: strerror(errno))) }
        position += Int64(n)
        return n
    }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
        var n: Int
        repeat { n = pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) } while n < 0 && errno == EINTR
        if n < 0 && errno == ESPIPE { return nil }
        if n < 0 { throw InputError(kind: .unreadable, path: path, offset: offset, reason: String(cString: strerror(errno))) }
        return n
    }
}

/// An entry of a zip archive, as the unzipped file would read: in order through one
/// `ZipEntryReader`, and at an offset through a second one that reads on from where it was
/// (the member check reads forward, starting each member a little before its last read
/// ended: its last chunk is kept; further back, it reads the entry again from its start).
final class ZipEntryInput: RawInput {
    let member: ZipMember
    private let file: ZipFile
    private let reader: ZipEntryReader
    private var seeker: ZipEntryReader?
    private let chunk: Int
    /// The seeker's last chunk (made with the seeker), and its offset in the entry.
    private var kept: UnsafeMutableRawBufferPointer?
    private var keptOffset: Int64 = 0
    private var keptCount = 0

    init(_ member: ZipMember, chunk: Int = Tuning.readChunk) throws {
        self.member = member
        self.chunk = chunk
        file = try ZipFile(path: member.archive)
        reader = try ZipEntryReader(file: file, entry: member.entry, chunk: chunk)
    }

    deinit { kept?.deallocate() }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try reader.read(into: buffer)
    }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
        if member.entry.method == ZipEntryReader.stored {
            let want = Int(max(0, min(Int64(buffer.count), member.entry.size - offset)))
            return try file.read(at: reader.dataStart + offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
        }
        if seeker == nil || offset < keptOffset {
            seeker = try ZipEntryReader(file: file, entry: member.entry, chunk: chunk)
            keptOffset = 0
            keptCount = 0
        }
        if kept == nil { kept = .allocate(byteCount: chunk, alignment: 16) }
        guard let seeker, let kept else { return 0 }
        while offset >= keptOffset + Int64(keptCount) {
            keptOffset += Int64(keptCount)
            keptCount = try seeker.read(into: kept)
            if keptCount == 0 { return 0 }
        }
        let from = Int(offset - keptOffset)
        let n = min(buffer.count, keptCount - from)
        if let out = buffer.baseAddress, let src = kept.baseAddress { memcpy(out, src + from, n) }
        return n
    }
}

/// One entry of a zip archive as an input: the archive's path and the entry.
public struct ZipMember: Sendable, Hashable {
    public var archive: String
    public var entry: ZipArchive.Entry

    public init(archive: String, entry: ZipArchive.Entry) {
        self.archive = archive
        self.entry = entry
    }

    /// The name the summary, the ledger and messages give the entry: the archive's path as
    /// given, a colon, and the entry's name as the archive stores it
    /// (`export.zip:123456/123456_2026-10-01_0#0.json.gz`).
    public var label: String { archive + ":" + entry.name }
}

extension ZipMember {
    /// Reads the entry through to its end (its CRC-32 and size checked), handing `body` a
    /// chunk at a time, before anything of it is stored: throws the archive's faults, and
    /// `unsupported` for an entry in a compressor funnel does not read (as `InputFormat.check`).
    public func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let reader = try ZipEntryReader(archive: archive, entry: entry)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Tuning.readChunk, alignment: 16)
        defer { buffer.deallocate() }
        var first = true
        while true {
            let n = try reader.read(into: buffer)
            if n == 0 { return }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            if first, case .refused(let name) = InputFormat.sniff(chunk.prefix(InputFormat.magicLength)) {
                throw InputError.unsupported(path: label, format: name)
            }
            first = false
            try body(chunk)
        }
    }
}
