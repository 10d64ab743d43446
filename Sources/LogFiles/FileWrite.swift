#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes all of `bytes` to `fd`, again after a short write or an interrupt. Nil when done,
/// else the system's reason for the failure.
public func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> String? {
    guard let base = bytes.baseAddress else { return nil }
    var written = 0
    while written < bytes.count {
        #if canImport(Glibc)
        let n = Glibc.write(fd, base + written, bytes.count - written)
        #else
        let n = Darwin.write(fd, base + written, bytes.count - written)
        #endif
        if n < 0 {
            if errno == EINTR { continue }
            return String(cString: strerror(errno))
        }
        written += n
    }
    return nil
}

/// A file written whole or not at all: the bytes go to a new file beside `path` (same
/// folder, so the rename cannot cross file systems), which `commit` syncs and renames over
/// `path`; until then `path` keeps its old content, and a failed or killed write leaves it
/// whole. A symbolic link is followed: its target gets the new content, the link stays. The
/// new file keeps the old one's permissions (else the usual 0666 less the umask).
public final class ReplacingFile {
    /// The destination as the user named it (for messages).
    public let path: String
    /// Where the bytes go until `commit`.
    public let temporary: String
    private let destination: String
    private var fd: Int32
    private var committed = false

    public init(path: String) throws {
        self.path = path
        let resolved = ReplacingFile.followingLinks(path)
        destination = resolved
        let slash = resolved.lastIndex(of: "/")
        let folder = slash.map { String(resolved[..<$0]) } ?? "."
        let name = slash.map { String(resolved[resolved.index(after: $0)...]) } ?? resolved
        var attempt = 0
        while true {
            let candidate = (folder.isEmpty ? "" : folder + "/") + ".\(name).funnel-\(UInt32.random(in: 0...UInt32.max))"
            let f = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if f >= 0 {
                temporary = candidate
                fd = f
                break
            }
            attempt += 1
            guard errno == EEXIST, attempt < 100 else {
                throw OutputError(path: path, reason: String(cString: strerror(errno)))
            }
        }
        var old = stat()
        if stat(resolved, &old) == 0 { _ = fchmod(fd, old.st_mode & 0o7777) }
    }

    deinit {
        if fd >= 0 { close(fd) }
        if !committed { unlink(temporary) }
    }

    /// Appends all of `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        if let reason = writeAll(fd, bytes) { throw OutputError(path: path, reason: reason) }
    }

    /// Syncs the new content and gives it the destination's name.
    public func commit() throws {
        guard fsync(fd) == 0 else { throw OutputError(path: path, reason: String(cString: strerror(errno))) }
        close(fd)
        fd = -1
        guard rename(temporary, destination) == 0 else { throw OutputError(path: path, reason: String(cString: strerror(errno))) }
        committed = true
    }

    /// Writes `bytes` to `path` whole or not at all.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        let file = try ReplacingFile(path: path)
        try bytes.withUnsafeBytes { try file.write($0) }
        try file.commit()
    }

    /// `path` with its symbolic links followed (a link to a missing file gives that file);
    /// `path` itself when it is not a link.
    static func followingLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n > 0 else { return current }
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix("/") {
                current = target
            } else if let slash = current.lastIndex(of: "/") {
                current = String(current[...slash]) + target
            } else {
                current = target
            }
        }
        return current
    }
}
