import CDeflate
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file (or standard input, or an entry of a zip archive: `RawInput`) as a stream of
/// bytes, decompressing gzip or zstd when the data starts with that format's magic number
/// (every member or frame of the file is read), and refusing the compressed formats funnel
/// does not read. Memory stays bounded by
/// the chunk size and the member limit, whatever the file size.
///
/// No byte of a member that fails its checks is handed on: a gzip member that lies whole in
/// the input buffer and fits `memberLimit` is decompressed and checked in one call by
/// libdeflate (collectors write members of about 100 KiB); any other member (a larger one,
/// one libdeflate rejects, one with a header CRC, which libdeflate does not check, and every
/// zstd frame) is first decompressed to nowhere from the file (`MemberCheck`) and streamed
/// only once it passes, or, for a file's first member, checked on another thread while it is
/// streamed, the reader holding what it made of it until the check passes
/// (`onDeferredCheck`). A streamed gzip member is checked and streamed by ISA-L's igzip
/// (`IsalMemberDecoder`); one that igzip does not pass, or whose header it does not check, is
/// checked again and streamed by zlib, whose verdict, reason and offset are the ones
/// reported. A member cut short by the end of the file cannot pass: none of its bytes are
/// handed on either, and the stream throws `truncated` at the end of the file (standard
/// input read directly, which cannot be read twice, is streamed unchecked, through zlib:
/// ingest spools it to a file first). Zero bytes after the last member are padding, as gzip
/// reads them; other bytes there are `corrupt`, at their offset.
public final class ByteStream {
    public let path: String
    private let raw: any RawInput
    private var input: [UInt8]
    private var inputStart = 0
    private var inputEnd = 0
    /// Compressed bytes of the file before `input[0]`.
    private var fileOffset: Int64 = 0
    private var sawEOF = false
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
    /// False once a member did not fit or failed: the rest are streamed.
    private var wholeMembers = true
    /// The size of the last member decompressed whole (0: none yet): a reader's buffer that
    /// holds it twice over takes the next member directly, without a copy from `staged`.
    private var lastWholeMember = 0
    /// The streaming decoder, made once the input is known to be compressed, and the one that
    /// checks each streamed member first, made when a member is first streamed.
    private var decoder: (any MemberDecoder)?
    private lazy var checker = MemberCheck(decoder: format.makeDecoder())
    /// igzip's decoder and checker for gzip members (see the type's comment), made when a
    /// gzip member is first streamed.
    private lazy var fastDecoder = IsalMemberDecoder()
    private lazy var fastChecker = MemberCheck(decoder: IsalMemberDecoder())
    /// The decoder of the member being streamed: `fastDecoder` or `decoder`.
    private var memberDecoder: (any MemberDecoder)?
    /// False streams every member through zlib alone (the tests' reference).
    var igzip = true
    /// Set before the first read: a regular file's first member, when it is streamed, is
    /// not checked first; it is streamed at once and its check is handed here, to run on
    /// another thread. The reader keeps nothing made of the stream's bytes until the check
    /// passes, and reads the file again without this when it does not.
    public var onDeferredCheck: ((DeferredMemberCheck) -> Void)?
    /// Bytes read from the file so far (compressed size when compressed).
    public private(set) var bytesRead: Int64 = 0
    /// What the input holds, known after the first read.
    public private(set) var format = InputFormat.text
    /// True once the input was found to be gzip.
    public var isGzip: Bool { format == .gzip }
    /// Members (gzip) or frames (zstd) completed so far.
    public private(set) var members = 0
    /// Of `members`, those decompressed whole by libdeflate.
    public private(set) var wholeMembersRead = 0
    /// Of `members`, those checked and streamed by igzip.
    public private(set) var igzipMembersRead = 0

    /// Opens `path`; `-` is standard input. `memberLimit` is the largest gzip member
    /// (uncompressed) decompressed in one call; 0 streams every member.
    public convenience init(path: String, chunkSize: Int = Tuning.readChunk, memberLimit: Int = Tuning.wholeMemberBytes) throws {
        try self.init(path: path, raw: FileInput(path: path), chunkSize: chunkSize, memberLimit: memberLimit)
    }

    /// Opens an input: a file, standard input, or an entry of a zip archive, read as the
    /// unzipped file would be (its faults name it by its label, at offsets in its bytes).
    public convenience init(input: InputSource, chunkSize: Int = Tuning.readChunk, memberLimit: Int = Tuning.wholeMemberBytes) throws {
        if let fault = input.fault { throw fault }
        let raw: any RawInput = try input.zip.map { try ZipEntryInput($0) } ?? FileInput(path: input.path)
        try self.init(path: input.path, raw: raw, chunkSize: chunkSize, memberLimit: memberLimit)
    }

    private init(path: String, raw: any RawInput, chunkSize: Int, memberLimit: Int) throws {
        self.path = path
        self.raw = raw
        self.chunkSize = chunkSize
        self.memberLimit = memberLimit
        wholeMembers = memberLimit > 0
        self.input = [UInt8](repeating: 0, count: chunkSize)
    }

    deinit {
        if let decompressor { libdeflate_free_decompressor(decompressor) }
        staged?.deallocate()
    }

    private var position: Int64 { fileOffset + Int64(inputStart) }

    private func fault(_ kind: InputError.Kind, at offset: Int64, _ reason: String) -> InputError {
        finished = true
        return InputError(kind: kind, path: path, offset: offset, reason: reason, stream: format.streamName)
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
        let n: Int
        do {
            n = try input.withUnsafeMutableBytes { buf in
                try raw.read(into: UnsafeMutableRawBufferPointer(rebasing: buf[inputEnd...]))
            }
        } catch {
            finished = true
            throw error
        }
        if n == 0 { sawEOF = true }
        inputEnd += n
        bytesRead += Int64(n)
    }

    /// Reads until `input` holds `count` unread bytes or the file ends.
    private func fill(atLeast count: Int) throws {
        while inputEnd - inputStart < count && !sawEOF { try fill() }
    }

    /// Reads until `input` is full (its unread bytes moved to the front) or the file ends.
    private func fillAll() throws {
        repeat { try fill() } while !sawEOF && inputEnd < input.count
    }

    // MARK: between members

    /// At a member boundary: true when another member starts here; false at the end of the
    /// input, or when only zero bytes are left (padding). Throws for any other bytes.
    private func nextMemberFollows() throws -> Bool {
        try fill(atLeast: 4)
        if inputStart == inputEnd { return false }
        let starts = input.withUnsafeBytes { format.startsMember(UnsafeRawBufferPointer(rebasing: $0[inputStart..<inputEnd])) }
        if starts == true { return true }
        let at = position
        if starts == nil && sawEOF && input[inputStart..<inputEnd].contains(where: { $0 != 0 }) {
            throw fault(.truncated, at: at + Int64(inputEnd - inputStart),
                        "the stream ends inside the header of \(format.memberName) \(members + 1)")
        }
        while true {
            if let nonZero = input[inputStart..<inputEnd].firstIndex(where: { $0 != 0 }) {
                let offset = fileOffset + Int64(nonZero)
                throw fault(.corrupt, at: offset, "the bytes after \(format.memberName) \(members) (from byte \(at)) are not \(format.streamName) data")
            }
            inputStart = inputEnd
            if sawEOF { return false }
            try fill()
        }
    }

    /// Checks the member starting here before any of its bytes are streamed (see the type);
    /// returns the decoder to stream it with.
    private func checkMember(_ decoder: any MemberDecoder) throws -> any MemberDecoder {
        if format == .gzip, igzip, fastHandlesMember {
            let fast: MemberCheck.Result
            do { fast = try fastChecker.check(raw, at: position) } catch { finished = true; throw error }
            if fast == .good { return fastDecoder }
        }
        let result: MemberCheck.Result
        do { result = try checker.check(raw, at: position) } catch { finished = true; throw error }
        switch result {
        case .good, .unseekable: return decoder
        case .failed(let offset, let reason):
            throw fault(.corrupt, at: offset, "\(reason) in \(format.memberName) \(members + 1)")
        case .truncated(let offset):
            throw fault(.truncated, at: offset, "the stream ends inside \(format.memberName) \(members + 1)")
        }
    }

    /// The decoder to stream the file's first member with when its check is deferred (see
    /// `onDeferredCheck`): the one its check would pick when the member passes; nil when
    /// the check is not deferred (not asked for, not the first member, not a regular file).
    private func deferredCheck(_ decoder: any MemberDecoder) -> (any MemberDecoder)? {
        guard let handOver = onDeferredCheck, members == 0, position == 0,
              let file = raw as? FileInput, file.isRegularFile else { return nil }
        onDeferredCheck = nil
        let fast = format == .gzip && igzip && fastHandlesMember
        handOver(DeferredMemberCheck(file: file, decoder: fast ? IsalMemberDecoder() : format.makeDecoder()))
        return fast ? fastDecoder : decoder
    }

    // MARK: whole gzip members

    /// Where a member decompressed whole went.
    private enum WholeMember {
        /// Into the reader's buffer: this many bytes.
        case direct(Int)
        /// Into `staged`, to be read from there.
        case staged
    }

    /// Decompresses the member at `inputStart` in one call, into `direct` when it is likely
    /// to fit there, else into `staged`; nil, with nothing consumed and the fast path off for
    /// the rest of the stream, when it is not whole in `input`, does not fit `staged`, or
    /// fails (it is then checked and streamed).
    private func decompressWholeMember(into direct: UnsafeMutableRawBufferPointer) throws -> WholeMember? {
        if !sawEOF && inputEnd - inputStart < input.count / 2 { try fillAll() }
        if let whole = wholeMember(into: direct) { return whole }
        // The member may run past what the buffer held: once more with the buffer full.
        if !sawEOF && (inputStart > 0 || inputEnd < input.count) {
            try fillAll()
            if let whole = wholeMember(into: direct) { return whole }
        }
        wholeMembers = false
        return nil
    }

    /// True when igzip checks the header of the gzip member here as zlib does.
    private var fastHandlesMember: Bool {
        input.withUnsafeBytes { IsalMemberDecoder.handles(UnsafeRawBufferPointer(rebasing: $0[inputStart..<inputEnd])) }
    }

    /// True when the gzip member here has a header CRC (FLG.FHCRC), which libdeflate skips.
    private var hasHeaderCRC: Bool {
        inputEnd - inputStart >= 4 && input[inputStart + 3] & 0x02 != 0
    }

    /// The member at `inputStart` decompressed whole: into `direct` when the last whole
    /// member fits it twice over (any failure there is tried again into `staged`, whose
    /// failure is the verdict), else into `staged`; nil when that fails.
    private func wholeMember(into direct: UnsafeMutableRawBufferPointer) -> WholeMember? {
        if decompressor == nil {
            decompressor = libdeflate_alloc_decompressor()
            staged = UnsafeMutableRawPointer.allocate(byteCount: memberLimit, alignment: 16)
        }
        guard let decompressor, let staged else { return nil }
        /// Decompresses into `out` (room for `room` bytes): the bytes produced, nil on failure.
        func decompress(to out: UnsafeMutableRawPointer, room: Int) -> Int? {
            var consumed = 0
            var produced = 0
            let available = inputEnd - inputStart
            let result = input.withUnsafeBufferPointer { src -> libdeflate_result in
                guard let base = src.baseAddress else { return LIBDEFLATE_BAD_DATA }
                return libdeflate_gzip_decompress_ex(decompressor, base + inputStart, available, out, room,
                                                     &consumed, &produced)
            }
            guard result == LIBDEFLATE_SUCCESS else { return nil }
            inputStart += consumed
            members += 1
            wholeMembersRead += 1
            lastWholeMember = produced
            return produced
        }
        if let out = direct.baseAddress, lastWholeMember > 0, direct.count / 2 >= lastWholeMember,
           let produced = decompress(to: out, room: min(direct.count, memberLimit)) {
            return .direct(produced)
        }
        guard let produced = decompress(to: staged, room: memberLimit) else { return nil }
        stagedStart = 0
        stagedEnd = produced
        return .staged
    }

    // MARK: reading

    /// Fills `buffer` with the next decompressed bytes; returns how many (0 at the end).
    /// Throws `InputError` for a truncated, corrupt or unsupported stream: the bytes returned
    /// before the error are good.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !finished, let out = buffer.baseAddress, buffer.count > 0 else { return 0 }
        if !started {
            try fill(atLeast: InputFormat.magicLength)
            started = true
            format = input.withUnsafeBufferPointer { InputFormat.sniff(UnsafeBufferPointer(rebasing: $0[inputStart..<inputEnd])) }
            if case .refused(let name) = format { finished = true; throw InputError.unsupported(path: path, format: name) }
            if format == .zstd { wholeMembers = false }
            if format != .text { decoder = format.makeDecoder() }
        }
        guard let decoder else { return try copyText(into: buffer) }
        while true {
            if stagedStart < stagedEnd, let staged {
                let n = min(buffer.count, stagedEnd - stagedStart)
                memcpy(out, staged + stagedStart, n)
                stagedStart += n
                return n
            }
            if !memberOpen {
                guard try nextMemberFollows() else { finished = true; return 0 }
                if wholeMembers, !hasHeaderCRC, let whole = try decompressWholeMember(into: buffer) {
                    if case .direct(let n) = whole, n > 0 { return n }
                    continue
                }
                let streaming = try deferredCheck(decoder) ?? checkMember(decoder)
                guard streaming.reset() else { throw fault(.corrupt, at: position, "cannot start decompressing") }
                memberDecoder = streaming
                memberOpen = true
            }
            if inputStart == inputEnd { try fill() }
            let streaming = memberDecoder ?? decoder
            let step = input.withUnsafeBytes { src in
                streaming.step(UnsafeRawBufferPointer(rebasing: src[inputStart..<inputEnd]), buffer)
            }
            inputStart += step.consumed
            switch step.outcome {
            case .end:
                memberOpen = false
                members += 1
                if streaming is IsalMemberDecoder { igzipMembersRead += 1 }
            case .more:
                if step.produced == 0 && sawEOF && inputStart == inputEnd {
                    throw fault(.truncated, at: position, "the stream ends inside \(format.memberName) \(members + 1)")
                }
            case .failed(let reason):
                throw fault(.corrupt, at: position, "\(reason) in \(format.memberName) \(members + 1)")
            }
            if step.produced > 0 { return step.produced }
        }
    }

    /// Uncompressed input: the bytes as they are.
    private func copyText(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if inputStart == inputEnd { try fill() }
        let n = min(buffer.count, inputEnd - inputStart)
        if n == 0 { finished = true; return 0 }
        input.withUnsafeBufferPointer { src in
            if let base = src.baseAddress, let out = buffer.baseAddress { memcpy(out, base + inputStart, n) }
        }
        inputStart += n
        return n
    }
}
