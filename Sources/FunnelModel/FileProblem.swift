#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a definition file (or, with `directory`, a folder of them) cannot be read, in the
/// words every checker prints: `no such file`, `no such directory`, `permission denied`,
/// `it is a directory`, `not a directory`, `it cannot be read`.
public enum FileProblem {
    public static func reason(_ path: String, directory: Bool = false) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return directory ? "no such directory" : "no such file" }
        let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
        if isDirectory != directory { return directory ? "not a directory" : "it is a directory" }
        return access(path, R_OK) == 0 ? "it cannot be read" : "permission denied"
    }
}
