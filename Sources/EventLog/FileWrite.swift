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
