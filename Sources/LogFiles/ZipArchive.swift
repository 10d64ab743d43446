#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A zip archive's directory (its central directory, read from the end of the file; ZIP64
/// too): the entries an archive such as Amplitude's export holds. Reading an entry is
/// `ZipEntryReader`'s. Faults are `InputError`s with stream `zip`, at their byte in the file.
public struct ZipArchive: Sendable, Hashable {
    /// One entry as the central directory describes it.
    public struct Entry: Sendable, Hashable {
        /// The name as stored (a path inside the archive, `/` between folders).
        public var name: String
        public var method: UInt16
        public var flags: UInt16
        public var crc32: UInt32
        public var compressedSize: Int64
        public var size: Int64
        /// Where the entry's local header starts in the file.
        public var headerOffset: Int64

        /// A folder, not a file: its name ends with `/`.
        public var isDirectory: Bool { name.hasSuffix("/") }
        /// The general purpose flag's bit 0.
        public var isEncrypted: Bool { flags & 1 != 0 }
        /// The last part of the name.
        public var fileName: String { name.split(separator: "/").last.map(String.init) ?? name }
    }

    public var path: String
    /// In the central directory's order.
    public var entries: [Entry]

    /// The zip signatures: a local header (an archive's first bytes) and the end of the
    /// central directory (all of an empty archive).
    static let localHeader: UInt32 = 0x0403_4B50
    static let endRecord: UInt32 = 0x0605_4B50
    static let centralHeader: UInt32 = 0x0201_4B50
    static let zip64EndRecord: UInt32 = 0x0606_4B50
    static let zip64Locator: UInt32 = 0x0706_4B50

    /// True when `head` starts as a zip archive does (a local header, or an empty archive).
    public static func startsArchive(_ head: some Collection<UInt8>) -> Bool {
        let b = Array(head.prefix(4))
        return b.count == 4 && (le32(b, 0) == localHeader || le32(b, 0) == endRecord)
    }

    /// Reads the directory of the archive at `path`.
    public static func read(path: String) throws -> ZipArchive {
        let file = try ZipFile(path: path)
        let end = try file.endOfDirectory()
        guard end.directoryOffset >= 0, end.directorySize >= 0, end.directoryOffset <= end.recordOffset,
              end.directorySize <= end.recordOffset - end.directoryOffset else {
            throw file.fault(.corrupt, at: end.recordOffset,
                             "the central directory (\(end.directorySize) bytes at byte \(end.directoryOffset)) does not lie before its end record")
        }
        let bytes = try file.bytes(at: end.directoryOffset, count: Int(end.directorySize))
        var entries: [Entry] = []
        var at = 0
        while entries.count < end.entryCount {
            let headerAt = end.directoryOffset + Int64(at)
            guard at + 46 <= bytes.count, le32(bytes, at) == centralHeader else {
                throw file.fault(.corrupt, at: headerAt, "no central directory header for entry \(entries.count + 1) of \(end.entryCount)")
            }
            let nameLength = Int(le16(bytes, at + 28)), extraLength = Int(le16(bytes, at + 30)), commentLength = Int(le16(bytes, at + 32))
            let next = at + 46 + nameLength + extraLength + commentLength
            guard next <= bytes.count else {
                throw file.fault(.corrupt, at: headerAt, "central directory header \(entries.count + 1) runs past the directory's end")
            }
            let name = String(decoding: bytes[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
            var entry = Entry(name: name, method: le16(bytes, at + 10), flags: le16(bytes, at + 8), crc32: le32(bytes, at + 16),
                              compressedSize: Int64(le32(bytes, at + 20)), size: Int64(le32(bytes, at + 24)),
                              headerOffset: Int64(le32(bytes, at + 42)))
            try readZip64(&entry, extra: bytes[(at + 46 + nameLength)..<(at + 46 + nameLength + extraLength)],
                          diskStart: le16(bytes, at + 34), file: file, at: headerAt)
            entries.append(entry)
            at = next
        }
        return ZipArchive(path: path, entries: entries)
    }

    /// The 64-bit sizes and offset of an entry whose 32-bit fields are full (ZIP64's extra
    /// field 0x0001 holds those that are, in this order).
    private static func readZip64(_ entry: inout Entry, extra: ArraySlice<UInt8>, diskStart: UInt16, file: ZipFile, at offset: Int64) throws {
        let full: Int64 = 0xFFFF_FFFF
        let needs = [entry.size == full, entry.compressedSize == full, entry.headerOffset == full]
        guard needs.contains(true) || diskStart == 0xFFFF else { return }
        let extra = Array(extra)
        var at = 0
        while at + 4 <= extra.count {
            let id = le16(extra, at), length = Int(le16(extra, at + 2))
            guard id == 1 else { at += 4 + length; continue }
            var field = at + 4
            func next() throws -> Int64 {
                guard field + 8 <= at + 4 + length, field + 8 <= extra.count else {
                    throw file.fault(.corrupt, at: offset, "the ZIP64 field of entry \(entry.name) is too short")
                }
                defer { field += 8 }
                return Int64(le32(extra, field)) | Int64(le32(extra, field + 4)) << 32
            }
            if needs[0] { entry.size = try next() }
            if needs[1] { entry.compressedSize = try next() }
            if needs[2] { entry.headerOffset = try next() }
            return
        }
        throw file.fault(.corrupt, at: offset, "entry \(entry.name) has full 32-bit sizes and no ZIP64 field")
    }
}

/// Little-endian fields of zip headers.
func le16(_ b: some RandomAccessCollection<UInt8>, _ at: Int) -> UInt16 {
    let i = b.index(b.startIndex, offsetBy: at)
    return UInt16(b[i]) | UInt16(b[b.index(after: i)]) << 8
}

func le32(_ b: some RandomAccessCollection<UInt8>, _ at: Int) -> UInt32 {
    UInt32(le16(b, at)) | UInt32(le16(b, at + 2)) << 16
}

func le64(_ b: some RandomAccessCollection<UInt8>, _ at: Int) -> Int64 {
    Int64(le32(b, at)) | Int64(le32(b, at + 4)) << 32
}

/// A zip file open for reading at offsets, and its faults as `InputError`s.
final class ZipFile {
    let path: String
    let fd: Int32
    let size: Int64

    init(path: String) throws {
        self.path = path
        let f = open(path, O_RDONLY)
        guard f >= 0 else { throw InputError(kind: .unreadable, path: path, offset: 0, reason: String(cString: strerror(errno))) }
        var st = stat()
        guard fstat(f, &st) == 0 else {
            let reason = String(cString: strerror(errno))
            close(f)
            throw InputError(kind: .unreadable, path: path, offset: 0, reason: reason)
        }
        fd = f
        size = Int64(st.st_size)
    }

    deinit { close(fd) }

    func fault(_ kind: InputError.Kind, at offset: Int64, _ reason: String) -> InputError {
        InputError(kind: kind, path: path, offset: offset, reason: reason, stream: "zip")
    }

    /// Reads into `buffer` at `offset`: the bytes read (fewer only at the end of the file).
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var got = 0
        while got < buffer.count {
            let n = pread(fd, buffer.baseAddress.map { $0 + got }, buffer.count - got, off_t(offset + Int64(got)))
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw InputError(kind: .unreadable, path: path, offset: offset + Int64(got), reason: String(cString: strerror(errno))) }
            if n == 0 { break }
            got += n
        }
        return got
    }

    /// `count` bytes at `offset`; throws `truncated` when the file ends first.
    func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let got = try out.withUnsafeMutableBytes { try read(at: offset, into: $0) }
        guard got == count else { throw fault(.truncated, at: offset + Int64(got), "the archive ends inside a header") }
        return out
    }

    struct EndOfDirectory {
        var recordOffset: Int64
        var entryCount: Int
        var directorySize: Int64
        var directoryOffset: Int64
    }

    /// The end of central directory record (the last one in the file, before a comment of
    /// at most 64 KiB), with ZIP64's when its fields are full.
    func endOfDirectory() throws -> EndOfDirectory {
        let tail = Int(min(size, 22 + 0xFFFF))
        let start = size - Int64(tail)
        let bytes = try self.bytes(at: start, count: tail)
        var at = tail - 22
        while at >= 0 && !(le32(bytes, at) == ZipArchive.endRecord && at + 22 + Int(le16(bytes, at + 20)) <= tail) { at -= 1 }
        guard at >= 0 else { throw missingEnd() }
        let recordOffset = start + Int64(at)
        let end = EndOfDirectory(recordOffset: recordOffset, entryCount: Int(le16(bytes, at + 10)),
                                 directorySize: Int64(le32(bytes, at + 12)), directoryOffset: Int64(le32(bytes, at + 16)))
        let disk = le16(bytes, at + 4), directoryDisk = le16(bytes, at + 6)
        let full = end.entryCount == 0xFFFF || end.directorySize == 0xFFFF_FFFF || end.directoryOffset == 0xFFFF_FFFF
        if full, recordOffset >= 20 {
            let locator = try self.bytes(at: recordOffset - 20, count: 20)
            if le32(locator, 0) == ZipArchive.zip64Locator {
                return try zip64End(at: le64(locator, 8), disks: le32(locator, 16), locatorOffset: recordOffset - 20)
            }
        }
        if disk != 0 || directoryDisk != 0 {
            throw fault(.unsupported, at: recordOffset + 4, "the archive is split across disks (disk \(disk)): join its parts first")
        }
        return end
    }

    private func zip64End(at offset: Int64, disks: UInt32, locatorOffset: Int64) throws -> EndOfDirectory {
        guard disks <= 1 else {
            throw fault(.unsupported, at: locatorOffset + 16, "the archive is split across \(disks) disks: join its parts first")
        }
        guard offset >= 0, offset <= locatorOffset - 56 else {
            throw fault(.corrupt, at: locatorOffset + 8, "the ZIP64 end record's offset \(offset) is not before its locator")
        }
        let b = try bytes(at: offset, count: 56)
        guard le32(b, 0) == ZipArchive.zip64EndRecord else {
            throw fault(.corrupt, at: offset, "no ZIP64 end of central directory record where its locator points")
        }
        return EndOfDirectory(recordOffset: offset, entryCount: Int(clamping: le64(b, 32)), directorySize: le64(b, 40), directoryOffset: le64(b, 48))
    }

    /// Why a file with no end record is no archive: cut short (it starts as one) or not one.
    private func missingEnd() -> InputError {
        let head = (try? bytes(at: 0, count: Int(min(size, 4)))) ?? []
        if ZipArchive.startsArchive(head) {
            return fault(.truncated, at: size, "no end of central directory record: the archive is cut short (a download that did not finish?)")
        }
        return fault(.corrupt, at: 0, "not a zip archive (no zip signature at its start and no end of central directory record)")
    }
}
