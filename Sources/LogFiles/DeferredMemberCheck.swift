/// The check of a file's first member, run on another thread while the member is already
/// streamed (`ByteStream.onDeferredCheck`): it reads the stream's own open file at offsets
/// (`pread`, which leaves the stream's position alone), so that it checks the very bytes the
/// stream reads, and keeps its own decoder and buffers. Nothing made of the member's bytes may
/// be kept before it passes.
/// Unchecked: made on the stream's thread and then run once, on one other thread; the file
/// is only read at offsets there.
public final class DeferredMemberCheck: @unchecked Sendable {
    private let file: FileInput
    private let decoder: any MemberDecoder

    init(file: FileInput, decoder: any MemberDecoder) {
        self.file = file
        self.decoder = decoder
    }

    /// True when the member passes its checks, as `MemberCheck` reads them; false for any
    /// other verdict.
    public func passes() -> Bool {
        (try? MemberCheck(decoder: decoder).check(file, at: 0)) == .good
    }
}
