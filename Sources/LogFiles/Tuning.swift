/// LogFiles's tuning constants, in one place: read sizes and cache bounds of parsing.
@usableFromInline
enum Tuning {
    /// Compressed bytes read from an input at a time.
    @usableFromInline static let readChunk = 1 << 18
    /// The largest gzip member (uncompressed) decompressed whole in one call; larger ones
    /// stream through zlib.
    @usableFromInline static let wholeMemberBytes = 1 << 20
    /// Compressed bytes read, and uncompressed bytes produced, at a time while a streamed
    /// member is checked before it is read.
    static let checkChunk = 1 << 18
    /// Uncompressed bytes the line reader takes from its stream at a time.
    @usableFromInline static let lineChunk = 1 << 18
    /// Distinct strings, contexts and property sets an event cache shares before a table
    /// starts over.
    static let cachedStrings = 65_536
    static let cachedContexts = 4_096
    static let cachedPropertySets = 16_384
    /// The gzip writer's output buffer.
    static let gzipOutputBytes = 1 << 16
    /// The fewest bytes a line is taken to need in a compressed input and in a plain one,
    /// for an estimate of its lines before it is read (`InputSource.expectedLines`): an
    /// envelope's keys alone take more than 100 bytes.
    static let compressedBytesPerLine: Int64 = 16
    static let plainBytesPerLine: Int64 = 100
}
