#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One input to ingest: a file path, or `-` for standard input.
public struct InputSource: Sendable, Hashable {
    public var path: String
    public var isStandardInput: Bool { path == "-" }

    public init(path: String) { self.path = path }

    /// The file name extensions collected from directories.
    public static let logExtensions = [".ndjson", ".jsonl", ".ndjson.gz", ".jsonl.gz", ".ndjson.zst", ".jsonl.zst"]

    public static func isLogFile(_ name: String, extensions: [String] = logExtensions) -> Bool {
        extensions.contains { name.hasSuffix($0) } && !name.hasPrefix(".")
    }

    /// What the directories given held besides logs, to say rather than pass over silently.
    public struct Skipped: Sendable, Hashable {
        /// Files left out for their names (hidden ones are not counted), in walk order.
        public var files: [String] = []
        /// Directories given that hold no log at all (at any depth).
        public var emptyDirectories: [String] = []
        public init() {}
    }

    /// Expands command-line arguments into inputs: files as given (any name), directories
    /// recursively (only `.ndjson`/`.jsonl` files and their `.gz` and `.zst` forms, in name order, hidden
    /// entries skipped), `-` for standard input. A path that does not exist throws
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
        var seen = Set<String>()
        func add(_ p: String) {
            if seen.insert(p).inserted { out.append(InputSource(path: p)) }
        }
        for arg in arguments {
            if arg == "-" { add("-"); continue }
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
