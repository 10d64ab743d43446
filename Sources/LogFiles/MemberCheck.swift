#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decompresses one member of a file to nowhere, from its first byte to its end, so that a
/// member which fails its checks (deflate data, CRC-32, length, header CRC, zstd checksum)
/// is known before any of its bytes are handed on. Reads the input at offsets (`pread` for a
/// file), beside the stream that reads it for real.
final class MemberCheck {
    enum Result: Equatable {
        /// The member ends and passes its checks.
        case good
        /// The file ends at this offset, inside the member: the member cannot be checked (a
        /// damaged end of a member can also run on through the bytes after it to the end).
        case truncated(offset: Int64)
        /// The member's data fails at this file offset, for this reason.
        case failed(offset: Int64, reason: String)
        /// The file cannot be read at an offset (a pipe): nothing was checked.
        case unseekable
    }

    private let decoder: any MemberDecoder
    private let input: UnsafeMutableRawBufferPointer
    private let output: UnsafeMutableRawBufferPointer

    init(decoder: any MemberDecoder, chunk: Int = Tuning.checkChunk) {
        self.decoder = decoder
        input = .allocate(byteCount: chunk, alignment: 16)
        output = .allocate(byteCount: chunk, alignment: 16)
    }

    deinit {
        input.deallocate()
        output.deallocate()
    }

    /// Checks the member of `input` that starts at `offset`. Throws the input's own faults
    /// (an entry of a zip archive that cannot be read).
    func check(_ source: any RawInput, at offset: Int64) throws -> Result {
        guard decoder.reset() else { return .failed(offset: offset, reason: "cannot start decompressing") }
        var position = offset
        var start = 0
        var end = 0
        while true {
            if start == end {
                let read: Int?
                do { read = try source.read(at: position, into: input) } catch let e as InputError where e.kind == .unreadable {
                    return .failed(offset: position, reason: e.reason)
                }
                guard let n = read else { return .unseekable }
                if n == 0 { return .truncated(offset: position) }
                start = 0
                end = n
            }
            let step = decoder.step(UnsafeRawBufferPointer(rebasing: input[start..<end]), output)
            start += step.consumed
            position += Int64(step.consumed)
            switch step.outcome {
            case .end: return .good
            case .failed(let reason): return .failed(offset: position, reason: reason)
            case .more: continue
            }
        }
    }
}
