import Foundation
#if os(Linux)
import Glibc

extension FileIdentity {
    /// A descriptor this process already holds open on this file (another part of it opened
    /// it: SQLite, for a store), found by identity among `/proc/self/fd`; nil when there is
    /// none. It opens and closes only that folder: never the file, whose POSIX locks a close
    /// of any of its descriptors would drop.
    package func heldDescriptor() -> Int32? {
        guard exists, let folder = opendir("/proc/self/fd") else { return nil }
        defer { closedir(folder) }
        let own = dirfd(folder)
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let fd = Int32(name), fd != own else { continue }
            if FileIdentity(descriptor: fd) == self { return fd }
        }
        return nil
    }
}
#endif
