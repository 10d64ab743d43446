/// What went wrong while reading or decompressing an input, and where.
public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The file cannot be opened or read.
        case unreadable
        /// The compressed stream ends before its last member is complete.
        case truncated
        /// The compressed stream holds bytes that are not valid compressed data, fail their
        /// check, or follow the last member and are not padding.
        case corrupt
        /// The input is compressed in a format funnel does not read (xz, bzip2, zlib, ...):
        /// nothing of it is stored.
        case unsupported
    }

    public var kind: Kind
    public var path: String
    /// Offset in the file (compressed bytes) where the fault was found.
    public var offset: Int64
    public var reason: String
    /// The compressed stream's format, as messages name it: gzip, zstd, or zip for a fault
    /// of a zip archive (its directory or an entry's data; the offset is then in the archive).
    public var stream: String

    public init(kind: Kind, path: String, offset: Int64, reason: String, stream: String = "gzip") {
        self.kind = kind
        self.path = path
        self.offset = offset
        self.reason = reason
        self.stream = stream
    }

    public var description: String {
        switch kind {
        case .unreadable: return "\(path): cannot read: \(reason)"
        case .unsupported: return "\(path): \(reason)"
        case .truncated, .corrupt:
            let what = stream == "zip" ? "zip archive" : "\(stream) stream"
            return "\(path): byte \(offset): \(kind.rawValue) \(what): \(reason)"
        }
    }
}
