import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a path names, to compare two paths: its device and inode when it exists, else its
/// folder's real path and its name.
package struct FileIdentity: Equatable {
    package var device: UInt64 = 0
    package var inode: UInt64 = 0
    package var missing: String?
    package var isFolder = false
    package var size: Int64 = 0

    package var exists: Bool { missing == nil }

    package init(_ path: String) {
        var st = stat()
        if stat(path, &st) == 0 {
            self.init(st)
            return
        }
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let real = realpath(folder, nil).map { p -> String in
            defer { free(p) }
            return String(cString: p)
        } ?? folder
        self.init(missing: real + "/" + url.lastPathComponent)
    }

    /// What an open descriptor names (its device and inode); nil when `fd` is not one.
    package init?(descriptor fd: Int32) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        self.init(st)
    }

    /// What a file's status names.
    private init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        isFolder = (st.st_mode & S_IFMT) == S_IFDIR
        size = Int64(st.st_size)
    }

    /// A path not there, named by its folder's real path and its name.
    private init(missing: String) {
        self.missing = missing
    }

    package static func == (a: FileIdentity, b: FileIdentity) -> Bool {
        if let m = a.missing { return m == b.missing }
        return b.missing == nil && a.device == b.device && a.inode == b.inode
    }
}
