#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure writing an output, naming it.
public struct OutputError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "cannot write \(path): \(reason)" }
}

/// Writes lines, each followed by a newline, to standard output or to a file: plain, or gzip
/// as a collector writes it (one member per `memberBytes` of lines, each compressed whole by
/// libdeflate). A file is written as a `ReplacingFile`, renamed when `finish()` succeeds,
/// so a failed or killed export never leaves a file that looks whole nor spoils an old one.
public final class LineWriter {
    /// Uncompressed bytes held before a write, and in each gzip member.
    public static let memberBytes = 1 << 20
    /// libdeflate's level for gzip members (zlib's default, 6).
    static let gzipLevel: Int32 = 6

    private let path: String?
    private let file: ReplacingFile?
    private let compressor: GzipMember?
    private var buffer: [UInt8] = []

    /// Standard output when `path` is nil or `-`; gzip when `gzip` (a file only).
    public init(path: String?, gzip: Bool) throws {
        buffer.reserveCapacity(LineWriter.memberBytes + 4096)
        guard let path, path != "-" else {
            self.path = nil
            file = nil
            compressor = nil
            return
        }
        self.path = path
        if gzip {
            guard let c = GzipMember(level: LineWriter.gzipLevel) else {
                throw OutputError(path: path, reason: "libdeflate could not allocate a compressor")
            }
            compressor = c
        } else {
            compressor = nil
        }
        file = try ReplacingFile(path: path)
    }

    public var label: String { path ?? "standard output" }

    /// Adds one line and its newline.
    public func write(_ line: UnsafeBufferPointer<UInt8>) throws {
        buffer.append(contentsOf: line)
        buffer.append(0x0A)
        if buffer.count >= LineWriter.memberBytes { try flush() }
    }

    /// Writes what is held and, for a file, syncs it and gives it its name.
    public func finish() throws {
        try flush()
        try file?.commit()
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        guard let compressor else { return try buffer.withUnsafeBytes { try send($0) } }
        let sent: Void? = try buffer.withUnsafeBytes { try compressor.compress($0) { try send($0) } }
        guard sent != nil else { throw OutputError(path: label, reason: "libdeflate could not compress a member") }
    }

    private func send(_ b: UnsafeRawBufferPointer) throws {
        if let file { return try file.write(b) }
        if let reason = writeAll(1, b) { throw OutputError(path: label, reason: reason) }
    }
}
