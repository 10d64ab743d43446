import LogFiles
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import StoreCore

/// The file a command writes its output to (`--output`, `--out`), checked before anything is
/// read or written: an output never replaces the store, a file the command reads, a SQLite
/// database or a log the store has ingested, whatever its name. Files are compared by what
/// they are (device and inode), not by how they are named: `./v.sqlite`, `v.sqlite` and a
/// link to it are the same file.
public struct OutputTarget: Sendable {
    /// The path as the user gave it.
    public var path: String
    /// The option that named it, for messages.
    public var option: String

    public init(path: String, option: String = "--output") {
        self.path = path
        self.option = option
    }

    /// The first bytes of every SQLite database file.
    static let sqliteHeader: [UInt8] = Array("SQLite format 3\0".utf8)

    /// Throws `OutputRefused` when `path` is a folder or in a folder that does not exist, the
    /// store at `store` (or its journal, WAL, shared memory or lock file), one of `reads`, or a
    /// SQLite database.
    public func check(store: String?, reads: [String]) throws {
        let mine = FileIdentity(path)
        if mine.isFolder { throw refused("it is a folder") }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !mine.exists, !FileIdentity(folder).isFolder { throw refused("its folder \(folder) does not exist") }
        if let store {
            for file in StoreFile.all(ofStore: store) where mine == FileIdentity(file.path) {
                throw refused("it is \(file)")
            }
        }
        for input in reads where input != "-" && mine == FileIdentity(input) {
            throw refused(input == path ? "the command reads it" : "the command reads it (as \(input))")
        }
        if mine.exists, startsWithSQLiteHeader() { throw refused("it is a SQLite database") }
    }

    /// Throws `OutputRefused` when `path` is a log the store has ingested: a file its ledger
    /// names, or one with the same bytes (size and SHA-256) as an input it lists.
    public func check(ledger: [LedgerEntry]) throws {
        let mine = FileIdentity(path)
        guard mine.exists else { return }
        for entry in ledger where entry.path != "-" && mine == FileIdentity(entry.path) {
            throw refused("the store has ingested it (as \(entry.path))")
        }
        let sameSize = ledger.filter { $0.size == mine.size }
        guard !sameSize.isEmpty, let content = try? InputContent.hash(path: path) else { return }
        if let entry = sameSize.first(where: { $0.sha256 == content.sha256 }) {
            throw refused("the store has ingested a log with the same bytes (\(entry.path))")
        }
    }

    private func refused(_ reason: String) -> OutputRefused {
        OutputRefused(option: option, path: path, reason: reason)
    }

    private func startsWithSQLiteHeader() -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: OutputTarget.sqliteHeader.count)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return n == head.count && head == OutputTarget.sqliteHeader
    }

    /// The format an output's name asks for: `html`, `json`, `csv`, `markdown` or `text` by
    /// its extension (`.html`/`.htm`, `.json`, `.csv`, `.md`/`.markdown`, `.txt`); nil for
    /// any other name.
    public var formatByExtension: String? {
        let name = path.split(separator: "/").last.map { $0.lowercased() } ?? ""
        let byExtension = [".html": "html", ".htm": "html", ".json": "json", ".csv": "csv", ".md": "markdown",
                           ".markdown": "markdown", ".txt": "text"]
        return byExtension.first { name.hasSuffix($0.key) && name.count > $0.key.count }?.value
    }
}

/// An output refused because writing it would destroy an input; nothing was written.
public struct OutputRefused: Error, Sendable, CustomStringConvertible {
    public var option: String
    public var path: String
    public var reason: String

    public var description: String {
        "refusing to write \(option) \(path): \(reason); nothing was written (choose another file)"
    }
}
