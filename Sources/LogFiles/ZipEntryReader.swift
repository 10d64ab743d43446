import CZlib

/// The bytes of one zip entry, in order, as the unzipped file holds them: a stored entry
/// (method 0) passed through, a deflate entry (method 8) inflated by zlib, a chunk at a time
/// (memory stays bounded whatever the entry's size), its CRC-32 and size checked at its end.
/// Faults are `InputError`s naming the archive (stream `zip`), the entry and the byte of the
/// archive: an encrypted entry or another method is `unsupported`, data cut short by the end
/// of the file `truncated`, bad deflate data or a CRC or size that does not match `corrupt`.
final class ZipEntryReader {
    let entry: ZipArchive.Entry
    private let file: ZipFile
    /// Where the entry's data starts in the archive.
    let dataStart: Int64
    /// Compressed bytes taken so far, and uncompressed bytes given.
    private var taken: Int64 = 0
    private(set) var produced: Int64 = 0
    private var crc: UInt = 0
    private var ended = false
    /// The deflate stream reached its end.
    private var inflated = false
    private var stream = z_stream()
    private var inflating = false
    private var input: UnsafeMutableRawBufferPointer
    private var inputStart = 0
    private var inputEnd = 0

    /// The methods read, by number, and the names of some others for messages.
    static let stored: UInt16 = 0, deflate: UInt16 = 8
    static let methodNames: [UInt16: String] = [1: "shrink", 6: "implode", 9: "deflate64", 12: "bzip2", 14: "LZMA",
                                                93: "zstd", 95: "xz", 98: "PPMd", 99: "AES encryption"]

    convenience init(archive path: String, entry: ZipArchive.Entry, chunk: Int = Tuning.readChunk) throws {
        try self.init(file: ZipFile(path: path), entry: entry, chunk: chunk)
    }

    init(file: ZipFile, entry: ZipArchive.Entry, chunk: Int = Tuning.readChunk) throws {
        self.file = file
        self.entry = entry
        input = .allocate(byteCount: chunk, alignment: 16)
        dataStart = try Self.dataStart(of: entry, in: file)
        if entry.method == Self.deflate {
            inflating = funnel_inflateInit2(&stream, -MAX_WBITS) == Z_OK
            guard inflating else { throw fault(.corrupt, at: dataStart, "cannot start inflating") }
        }
    }

    deinit {
        if inflating { inflateEnd(&stream) }
        input.deallocate()
    }

    private func fault(_ kind: InputError.Kind, at offset: Int64, _ reason: String) -> InputError {
        ended = true
        return file.fault(kind, at: offset, "entry \(entry.name): \(reason)")
    }

    /// Checks what the entry needs before its data (not encrypted, a method read, a local
    /// header where the directory says, data within the file) and returns where its data starts.
    private static func dataStart(of entry: ZipArchive.Entry, in file: ZipFile) throws -> Int64 {
        func fault(_ kind: InputError.Kind, at offset: Int64, _ reason: String) -> InputError {
            file.fault(kind, at: offset, "entry \(entry.name): \(reason)")
        }
        if entry.isEncrypted {
            throw fault(.unsupported, at: entry.headerOffset, "encrypted: unzip it with its password first")
        }
        guard entry.method == stored || entry.method == deflate else {
            let name = methodNames[entry.method].map { "\($0) (method \(entry.method))" } ?? "method \(entry.method)"
            throw fault(.unsupported, at: entry.headerOffset, "compressed with \(name); funnel reads stored and deflate entries: unzip it first")
        }
        guard entry.headerOffset >= 0, entry.headerOffset <= file.size - 30 else {
            throw fault(.truncated, at: file.size, "its local header (at byte \(entry.headerOffset)) is past the end of the file")
        }
        let header = try file.bytes(at: entry.headerOffset, count: 30)
        guard le32(header, 0) == ZipArchive.localHeader else {
            throw fault(.corrupt, at: entry.headerOffset, "no local header where the central directory says")
        }
        let start = entry.headerOffset + 30 + Int64(le16(header, 26)) + Int64(le16(header, 28))
        guard entry.compressedSize >= 0, entry.compressedSize <= file.size - start else {
            throw fault(.truncated, at: file.size, "its \(entry.compressedSize) bytes of data (from byte \(start)) run past the end of the file")
        }
        return start
    }

    /// Fills `buffer` with the entry's next bytes; 0 at its end (once its checks passed).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !ended, buffer.count > 0 else { return 0 }
        let n = entry.method == Self.stored ? try readStored(into: buffer) : try inflate(into: buffer)
        if n > 0 {
            crc = CZlib.crc32(crc, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(n))
            produced += Int64(n)
            if produced > entry.size {
                throw fault(.corrupt, at: dataStart + taken, "more than the \(entry.size) bytes the directory says")
            }
            return n
        }
        try finish()
        return 0
    }

    private func readStored(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let want = Int(min(Int64(buffer.count), entry.compressedSize - taken))
        guard want > 0 else { return 0 }
        let n = try file.read(at: dataStart + taken, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
        guard n > 0 else { throw fault(.truncated, at: dataStart + taken, "the file ends inside its data") }
        taken += Int64(n)
        return n
    }

    private func inflate(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if inflated { return 0 }
        while true {
            if inputStart == inputEnd {
                let want = Int(min(Int64(input.count), entry.compressedSize - taken))
                if want > 0 {
                    inputEnd = try file.read(at: dataStart + taken, into: UnsafeMutableRawBufferPointer(rebasing: input[0..<want]))
                    inputStart = 0
                }
            }
            let available = inputEnd - inputStart
            stream.next_in = input.baseAddress.map { ($0 + inputStart).assumingMemoryBound(to: UInt8.self) }
            stream.avail_in = UInt32(available)
            stream.next_out = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
            stream.avail_out = UInt32(min(buffer.count, Int(UInt32.max)))
            let result = CZlib.inflate(&stream, Z_NO_FLUSH)
            let consumed = available - Int(stream.avail_in)
            let out = min(buffer.count, Int(UInt32.max)) - Int(stream.avail_out)
            inputStart += consumed
            taken += Int64(consumed)
            switch result {
            case Z_STREAM_END:
                inflated = true
                return out
            case Z_OK, Z_BUF_ERROR:
                if out > 0 { return out }
                if inputStart == inputEnd && taken == entry.compressedSize {
                    throw fault(.truncated, at: dataStart + taken, "its deflate data ends before the stream does")
                }
            default:
                let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(result)"
                throw fault(.corrupt, at: dataStart + taken, "bad deflate data: \(message)")
            }
        }
    }

    /// The entry's end: its size and CRC-32 as the directory says.
    private func finish() throws {
        let end = dataStart + taken
        if taken != entry.compressedSize {
            throw fault(.corrupt, at: end, "its deflate stream ends after \(taken) of its \(entry.compressedSize) bytes")
        }
        if produced != entry.size {
            throw fault(.corrupt, at: end, "\(produced) bytes, where the directory says \(entry.size)")
        }
        if UInt32(truncatingIfNeeded: crc) != entry.crc32 {
            throw fault(.corrupt, at: end, "CRC-32 mismatch: its data gives \(hex(UInt32(truncatingIfNeeded: crc))), the directory says \(hex(entry.crc32))")
        }
        ended = true
    }

    private func hex(_ v: UInt32) -> String {
        let digits = String(v, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
