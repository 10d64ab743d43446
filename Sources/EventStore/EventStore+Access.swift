#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension EventStore {
    /// How a store file is opened.
    public enum Access: Sendable, Hashable {
        /// Read and written (migrations run, stale journeys refreshed).
        case readWrite
        /// SQLite's read-only mode, through the `-wal` and `-shm` files its writer keeps: sees
        /// what a running writer commits. Used only when both files exist (a read-only
        /// connection would otherwise create them, owned by whoever reads).
        case readOnly
        /// SQLite's `immutable` URI: the file alone, no `-wal`, `-shm` or lock taken or created.
        case immutable
    }

    /// How a command that only reads opens the store at `path`: read-write when this process
    /// may write the file and create its `-wal` and `-shm` beside it (or they exist and are
    /// writable); otherwise read-only through the writer's `-wal`/`-shm` when both exist, else
    /// immutable. A read-only attempt never creates a file, so none is left behind owned by
    /// the reader.
    public static func readAccess(path: String) -> Access {
        let wal = path + "-wal", shm = path + "-shm"
        let folder = folderOf(path)
        let sideFiles = exists(wal) && exists(shm)
        let canWrite = writable(path) && (sideFiles ? writable(wal) && writable(shm) : writable(folder))
        if canWrite { return .readWrite }
        return sideFiles ? .readOnly : .immutable
    }

    /// The `file:` URI of `path` opened immutable (`%`, `?` and `#` escaped as RFC 3986 says).
    static func immutableURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : currentDirectory() + "/" + path
        var escaped = ""
        for c in absolute.unicodeScalars {
            switch c {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.unicodeScalars.append(c)
            }
        }
        return "file:" + escaped + "?immutable=1"
    }

    /// Whether this process may write `path` (`access(2)`; the instance's `access` is taken).
    private static func writable(_ path: String) -> Bool {
        #if canImport(Glibc)
        return Glibc.access(path, W_OK) == 0
        #else
        return Darwin.access(path, W_OK) == 0
        #endif
    }

    private static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    private static func folderOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
