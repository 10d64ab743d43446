#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One input to ingest: a file path, `-` for standard input, or an entry of a zip archive.
public struct InputSource: Sendable, Hashable {
    /// The input's name in the summary, the ledger and messages: the file's path, `-`, or
    /// for an entry of a zip archive `ARCHIVE:ENTRY` (`ZipMember.label`).
    public var path: String
    /// Set for an entry of a zip archive: the input is the entry's bytes.
    public var zip: ZipMember?
    /// Set for a zip archive whose directory cannot be read: the input fails with it.
    public var fault: InputError?
    public var isStandardInput: Bool { path == "-" && zip == nil && fault == nil }

    public init(path: String) { self.path = path }

    public init(zip member: ZipMember) {
        path = member.label
        zip = member
    }

    init(path: String, fault: InputError) {
        self.path = path
        self.fault = fault
    }

    /// The file name extensions collected from directories.
    public static let logExtensions = [".ndjson", ".jsonl", ".ndjson.gz", ".jsonl.gz", ".ndjson.zst", ".jsonl.zst"]

    public static func isLogFile(_ name: String, extensions: [String] = logExtensions) -> Bool {
        extensions.contains { name.hasSuffix($0) } && !name.hasPrefix(".")
    }

    /// What the directories given held besides logs, to say rather than pass over silently.
    public struct Skipped: Sendable, Hashable {
        /// Files left out for their names (hidden ones are not counted), in walk order.
        public var files: [String] = []
        /// Directories and zip archives given that hold no log at all (at any depth).
        public var emptyDirectories: [String] = []
        /// Entries of zip archives left out for their names, as `ARCHIVE:ENTRY` (folders are
        /// not counted), in name order.
        public var entries: [String] = []
        public init() {}
    }

    /// Expands command-line arguments into inputs: files as given (any name), directories
    /// recursively (only `.ndjson`/`.jsonl` files and their `.gz` and `.zst` forms, in name order, hidden
    /// entries skipped), `-` for standard input, and each zip archive among the files (named
    /// `.zip`, or starting as one) into its entries named as logs, in name order (`expandZip`). A path that does not exist throws
    /// `InputError.unreadable`. The same path twice is read once.
    public static func discover(_ arguments: [String]) throws -> [InputSource] {
        var skipped = Skipped()
        return try discover(arguments, skipped: &skipped)
    }

    /// `discover`, with the files left out of directories and the directories with no log.
    /// `extensions`: the file name endings collected from directories (a vendor's export files
    /// for `ingest --source`).
    public static func discover(_ arguments: [String], extensions: [String] = logExtensions,
                                skipped: inout Skipped) throws -> [InputSource] {
        var out: [InputSource] = []
        var seen = Set<InputSource>()
        func add(_ input: InputSource) {
            if seen.insert(input).inserted { out.append(input) }
        }
        func add(_ p: String) {
            guard isZipArchive(p) else { return add(InputSource(path: p)) }
            for input in expandZip(p, extensions: extensions, skipped: &skipped) { add(input) }
        }
        for arg in arguments {
            if arg == "-" { add(InputSource(path: "-")); continue }
            var st = stat()
            guard stat(arg, &st) == 0 else {
                throw InputError(kind: .unreadable, path: arg, offset: 0, reason: String(cString: strerror(errno)))
            }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                let files = try walk(arg, extensions: extensions, skipped: &skipped.files)
                if files.isEmpty { skipped.emptyDirectories.append(arg) }
                for file in files { add(file) }
            } else {
                add(arg)
            }
        }
        return out
    }

    /// Log files under `dir`, recursively, in name order (byte order of the names at each
    /// level; a directory's files come where its name sorts); other files' paths go to `skipped`.
    static func walk(_ dir: String, extensions: [String] = logExtensions, skipped: inout [String]) throws -> [String] {
        guard let d = opendir(dir) else {
            throw InputError(kind: .unreadable, path: dir, offset: 0, reason: String(cString: strerror(errno)))
        }
        var names: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String in
                let bytes = raw.bindMemory(to: UInt8.self)
                let n = bytes.firstIndex(of: 0) ?? bytes.count
                return String(decoding: bytes[0..<n], as: UTF8.self)
            }
            if name == "." || name == ".." || name.hasPrefix(".") { continue }
            names.append(name)
        }
        closedir(d)
        names.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        var out: [String] = []
        let base = dir.hasSuffix("/") ? dir : dir + "/"
        for name in names {
            let path = base + name
            var st = stat()
            guard stat(path, &st) == 0 else { continue }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                out += try walk(path, extensions: extensions, skipped: &skipped)
            } else if isLogFile(name, extensions: extensions) {
                out.append(path)
            } else {
                skipped.append(path)
            }
        }
        return out
    }
}
