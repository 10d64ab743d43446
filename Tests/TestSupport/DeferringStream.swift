import LogFiles

/// A stream of a file set to hand its first member's check over (`onDeferredCheck`), and the
/// checks it has handed over so far.
public final class DeferringStream {
    public let stream: ByteStream
    public private(set) var checks: [DeferredMemberCheck] = []

    public init(path: String) throws {
        stream = try ByteStream(path: path)
        stream.onDeferredCheck = { [weak self] in self?.checks.append($0) }
    }
}
