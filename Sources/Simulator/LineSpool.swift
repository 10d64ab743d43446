import LogFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A simulation's lines in a temporary file, written in order and read back a line at a time
/// (`pread`) when the collector writes its batches: memory holds each line's start, event time
/// and user, never all the lines' bytes. The file is unlinked as soon as it is made, so it
/// has no name to leave behind, whatever ends the process.
public final class LineSpool: SimulatedLines {
    /// The folder the file was made in (for messages).
    public let folder: String
    private let fd: Int32
    /// Lines not yet written to the file; they follow its `written` bytes.
    private var pending: [UInt8] = []
    private var written = 0
    private var starts: [Int] = []
    private var micros: [Int64] = []
    private var users: [Int32] = []

    /// A new, empty spool in `folder` (which must exist).
    public init(in folder: String) throws {
        self.folder = folder
        var template = Array((folder + "/.funnel-spool-XXXXXX").utf8CString)
        let f = mkstemp(&template)
        guard f >= 0 else { throw OutputError(path: folder, reason: "cannot make a spool file: " + String(cString: strerror(errno))) }
        unlink(String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self))
        fd = f
        pending.reserveCapacity(Tuning.spoolWriteBytes)
    }

    deinit { close(fd) }

    public var count: Int { starts.count }

    /// Every byte spooled, written or pending.
    var byteCount: Int { written + pending.count }

    public func eventMicros(_ i: Int) -> Int64 { micros[i] }

    public func userIndex(_ i: Int) -> Int32 { users[i] }

    /// Adds `lines` (one user's) after the lines already spooled.
    public func append(_ lines: SimulatedEvents) throws {
        let base = byteCount
        for i in 0..<lines.count {
            starts.append(base + lines.starts[i])
            micros.append(lines.micros[i])
            users.append(lines.users[i])
        }
        pending += lines.bytes
        if pending.count >= Tuning.spoolWriteBytes { try flush() }
    }

    public func appendLine(_ i: Int, to buffer: inout [UInt8]) throws {
        if !pending.isEmpty { try flush() }
        let start = starts[i]
        let length = (i + 1 < starts.count ? starts[i + 1] : written) - start
        let end = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: length))
        var done = 0
        while done < length {
            let n = buffer.withUnsafeMutableBytes { room in
                pread(fd, room.baseAddress.map { $0 + end + done }, length - done, off_t(start + done))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                buffer.removeLast(length)
                let reason = n < 0 ? String(cString: strerror(errno)) : "the file ends early"
                throw OutputError(path: folder, reason: "cannot read line \(i + 1) back from the spool at byte \(start + done): " + reason)
            }
            done += n
        }
    }

    /// Writes the pending lines to the file.
    private func flush() throws {
        if let reason = pending.withUnsafeBytes({ writeAll(fd, $0) }) {
            throw OutputError(path: folder, reason: "cannot write the spool: " + reason)
        }
        written += pending.count
        pending.removeAll(keepingCapacity: true)
    }
}
