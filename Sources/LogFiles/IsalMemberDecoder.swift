import CIsal

/// A gzip member through ISA-L's igzip stream: about 2.8 times zlib's speed. It checks the
/// CRC-32 and the length, not a header CRC nor the header's reserved flags (`handles` keeps
/// those members for zlib), and names no fault as zlib does: `ByteStream` uses it only for
/// members it passed, and asks zlib about any other.
final class IsalMemberDecoder: MemberDecoder {
    private let state: UnsafeMutablePointer<inflate_state>

    init() {
        state = .allocate(capacity: 1)
        isal_inflate_init(state)
    }

    deinit { state.deallocate() }

    /// True when the gzip header starting `head` is one this decoder checks as zlib does:
    /// no header CRC (FHCRC) and no reserved flag bits.
    static func handles(_ head: UnsafeRawBufferPointer) -> Bool {
        head.count >= 4 && head[3] & 0xE2 == 0
    }

    func reset() -> Bool {
        isal_inflate_reset(state)
        state.pointee.crc_flag = UInt32(ISAL_GZIP)
        return true
    }

    func step(_ input: UnsafeRawBufferPointer, _ output: UnsafeMutableRawBufferPointer) -> DecodeStep {
        let inCount = min(input.count, Int(UInt32.max))
        let outCount = min(output.count, Int(UInt32.max))
        state.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        state.pointee.avail_in = UInt32(inCount)
        state.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        state.pointee.avail_out = UInt32(outCount)
        let result = isal_inflate(state)
        let consumed = inCount - Int(state.pointee.avail_in)
        let produced = outCount - Int(state.pointee.avail_out)
        if result < 0 { return DecodeStep(consumed: consumed, produced: produced, outcome: .failed("igzip error \(result)")) }
        let finished = state.pointee.block_state == ISAL_BLOCK_FINISH
        return DecodeStep(consumed: consumed, produced: produced, outcome: finished ? .end : .more)
    }
}
