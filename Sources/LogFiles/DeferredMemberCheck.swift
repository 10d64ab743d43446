/// The check of a file's first member, run on another thread while the member is already
/// streamed (`ByteStream.onDeferredCheck`): it opens the file for itself, so that it shares
/// nothing with the stream. Nothing made of the member's bytes may be kept before it passes.
/// Unchecked: made on the stream's thread and then run once, on one other thread.
public final class DeferredMemberCheck: @unchecked Sendable {
    private let path: String
    private let decoder: any MemberDecoder

    init(path: String, decoder: any MemberDecoder) {
        self.path = path
        self.decoder = decoder
    }

    /// True when the member passes its checks, as `MemberCheck` reads them; false for any
    /// other verdict, and when the file cannot be opened again.
    public func passes() -> Bool {
        guard let file = try? FileInput(path: path) else { return false }
        return (try? MemberCheck(decoder: decoder).check(file, at: 0)) == .good
    }
}
