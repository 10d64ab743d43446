import CZlib
import CZstd

/// One step of a member's decompression: the bytes it took and gave, and where it got.
struct DecodeStep {
    enum Outcome: Equatable {
        /// The member goes on: more input (or room for output) is needed.
        case more
        /// The member ended and passed its checks.
        case end
        /// The data is not valid or fails its check: why.
        case failed(String)
    }

    var consumed: Int
    var produced: Int
    var outcome: Outcome
}

/// Decompresses one gzip member or zstd frame at a time, in steps over whatever input and
/// output room the caller has (`ByteStream` reads with one, and checks members with another).
protocol MemberDecoder: AnyObject {
    /// Starts a new member; false when the library cannot.
    func reset() -> Bool
    func step(_ input: UnsafeRawBufferPointer, _ output: UnsafeMutableRawBufferPointer) -> DecodeStep
}

/// A gzip member through zlib's stream (it checks the header CRC when there is one, the
/// CRC-32 and the length).
final class ZlibMemberDecoder: MemberDecoder {
    private var stream = z_stream()
    private var ready = false

    deinit { if ready { inflateEnd(&stream) } }

    func reset() -> Bool {
        if ready { return inflateReset(&stream) == Z_OK }
        stream = z_stream()
        ready = funnel_inflateInit2(&stream, 16 + MAX_WBITS) == Z_OK
        return ready
    }

    func step(_ input: UnsafeRawBufferPointer, _ output: UnsafeMutableRawBufferPointer) -> DecodeStep {
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.avail_in = UInt32(min(input.count, Int(UInt32.max)))
        stream.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.avail_out = UInt32(min(output.count, Int(UInt32.max)))
        let result = inflate(&stream, Z_NO_FLUSH)
        let consumed = min(input.count, Int(UInt32.max)) - Int(stream.avail_in)
        let produced = min(output.count, Int(UInt32.max)) - Int(stream.avail_out)
        switch result {
        case Z_STREAM_END: return DecodeStep(consumed: consumed, produced: produced, outcome: .end)
        case Z_OK, Z_BUF_ERROR: return DecodeStep(consumed: consumed, produced: produced, outcome: .more)
        default:
            let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(result)"
            return DecodeStep(consumed: consumed, produced: produced, outcome: .failed(message))
        }
    }
}

/// A zstd frame through libzstd's stream (it checks the content checksum when the frame
/// has one; skippable frames end with no output).
final class ZstdMemberDecoder: MemberDecoder {
    private let context: OpaquePointer?

    init() { context = ZSTD_createDCtx() }

    deinit { ZSTD_freeDCtx(context) }

    func reset() -> Bool {
        guard let context else { return false }
        return ZSTD_isError(ZSTD_DCtx_reset(context, ZSTD_reset_session_only)) == 0
    }

    func step(_ input: UnsafeRawBufferPointer, _ output: UnsafeMutableRawBufferPointer) -> DecodeStep {
        var src = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        var dst = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        let result = ZSTD_decompressStream(context, &dst, &src)
        if ZSTD_isError(result) != 0 {
            return DecodeStep(consumed: src.pos, produced: dst.pos, outcome: .failed(String(cString: ZSTD_getErrorName(result))))
        }
        return DecodeStep(consumed: src.pos, produced: dst.pos, outcome: result == 0 ? .end : .more)
    }
}
