#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What an input holds, told by its first bytes (its magic number), whatever its name says.
public enum InputFormat: Sendable, Hashable {
    /// Uncompressed NDJSON.
    case text
    case gzip
    case zstd
    /// Compressed data funnel does not read: the format's name.
    case refused(String)

    /// The most bytes `sniff` looks at.
    public static let magicLength = 6

    /// The format of data starting with `head` (all of the input when it is shorter than
    /// `magicLength`).
    public static func sniff(_ head: some Collection<UInt8>) -> InputFormat {
        let b = Array(head.prefix(magicLength))
        func starts(_ magic: [UInt8]) -> Bool { b.starts(with: magic) }
        if starts([0x1F, 0x8B]) { return .gzip }
        if starts(zstdMagic) || isSkippableFrame(b) { return .zstd }
        if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .refused("xz") }
        if b.count >= 4, starts([0x42, 0x5A, 0x68]), (0x31...0x39).contains(b[3]) { return .refused("bzip2") }
        if starts([0x04, 0x22, 0x4D, 0x18]) { return .refused("lz4") }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return .refused("zip") }
        // zlib: a 32 KiB window and one of the four header checks zlib's levels write.
        if b.count >= 2, b[0] == 0x78, [0x01, 0x5E, 0x9C, 0xDA].contains(b[1]) { return .refused("zlib") }
        return .text
    }

    /// The format of the file at `path` (never standard input). Throws `InputError` when
    /// it cannot be read, or with kind `unsupported` when it is compressed in a format
    /// funnel does not read: nothing of it should be stored.
    public static func check(path: String) throws -> InputFormat {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw InputError(kind: .unreadable, path: path, offset: 0, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: magicLength)
        var got = 0
        while got < head.count {
            let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress.map { $0 + got }, $0.count - got, off_t(got)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw InputError(kind: .unreadable, path: path, offset: Int64(got), reason: String(cString: strerror(errno))) }
            if n == 0 { break }
            got += n
        }
        let format = sniff(head[0..<got])
        if case .refused(let name) = format { throw InputError.unsupported(path: path, format: name) }
        return format
    }

    /// A decoder of this format's members (zlib's for gzip).
    func makeDecoder() -> any MemberDecoder {
        self == .zstd ? ZstdMemberDecoder() : ZlibMemberDecoder()
    }

    /// The name a member or frame of this format goes by in messages.
    var memberName: String {
        switch self {
        case .zstd: return "zstd frame"
        default: return "gzip member"
        }
    }

    /// The stream's name in messages.
    var streamName: String {
        switch self {
        case .zstd: return "zstd"
        default: return "gzip"
        }
    }

    /// True when `head` starts a member or frame of this format; nil when it is too short
    /// to tell but could still start one.
    func startsMember(_ head: UnsafeRawBufferPointer) -> Bool? {
        let magic: [UInt8] = self == .zstd ? InputFormat.zstdMagic : [0x1F, 0x8B]
        let n = min(head.count, magic.count)
        if self == .zstd, head.count >= 4, InputFormat.isSkippableFrame(Array(head.prefix(4))) { return true }
        guard head.prefix(n).elementsEqual(magic.prefix(n)) else { return false }
        return n == magic.count ? true : nil
    }

    static let zstdMagic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    /// zstd's skippable frames: magic 0x184D2A50 to 0x184D2A5F, little-endian.
    static func isSkippableFrame(_ b: [UInt8]) -> Bool {
        b.count >= 4 && b[0] & 0xF0 == 0x50 && b[1] == 0x2A && b[2] == 0x4D && b[3] == 0x18
    }
}

extension InputError {
    /// An input compressed in a format funnel does not read.
    static func unsupported(path: String, format: String) -> InputError {
        InputError(kind: .unsupported, path: path, offset: 0,
                   reason: "\(format) data, not gzip: decompress it first")
    }
}
