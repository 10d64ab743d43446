import CDeflate

/// Bytes in memory compressed as one whole gzip member by libdeflate: what `LineWriter`
/// writes to a `.gz` file, and the body of a compressed HTTP request.
public final class GzipMember {
    private let compressor: OpaquePointer
    private var out: [UInt8] = []

    /// Nil when libdeflate cannot allocate a compressor.
    public init?(level: Int32) {
        guard let c = libdeflate_alloc_compressor(level) else { return nil }
        compressor = c
    }

    deinit { libdeflate_free_compressor(compressor) }

    /// `src` as one gzip member, handed to `body` (valid during the call only); nil when
    /// libdeflate could not compress it.
    public func compress<R>(_ src: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        let bound = libdeflate_gzip_compress_bound(compressor, src.count)
        if out.count < bound { out = [UInt8](repeating: 0, count: bound) }
        let n = out.withUnsafeMutableBytes { dst in
            libdeflate_gzip_compress(compressor, src.baseAddress, src.count, dst.baseAddress, dst.count)
        }
        guard n > 0 else { return nil }
        return try out.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
    }
}
