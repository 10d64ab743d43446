#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A property a harness found broken: says which and stops the process, so that libFuzzer
/// records the input as a crash.
public func fuzzFailure(_ message: String) -> Never {
    var text = "fuzz property broken: \(message)\n"
    text.withUTF8 { b in _ = b.baseAddress.map { Glibc.write(2, $0, b.count) } }
    abort()
}

/// Fails with `message` unless `condition` holds.
public func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fuzzFailure(message()) }
}

/// libFuzzer's input as bytes.
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// One scratch file per process, rewritten with each input, for the readers that open a path.
public enum FuzzFile {
    /// The scratch file's path, in `TMPDIR` (or /tmp), named after the process.
    public static let path: String = {
        let dir = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        return "\(dir)/funnel-fuzz-\(getpid()).input"
    }()

    /// Replaces the scratch file's content with `bytes`; returns its path.
    public static func write(_ bytes: [UInt8]) -> String {
        _ = removal
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { fuzzFailure("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { b -> Int in
                guard let base = b.baseAddress else { return 0 }
                return Glibc.write(fd, base + done, b.count - done)
            }
            guard n > 0 else { fuzzFailure("cannot write \(path): \(String(cString: strerror(errno)))") }
            done += n
        }
        return path
    }

    /// Removes the scratch file when the process exits (registered once, on the first write).
    private static let removal: Void = { atexit { unlink(FuzzFile.path) } }()
}

/// libFuzzer's driver, run with the process's arguments (libFuzzer's own `main` is not used:
/// the package manager gives each executable an entry point of its own).
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// Runs libFuzzer on `test` (a harness's `LLVMFuzzerTestOneInput`) and exits with its status.
public func runFuzzer(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, test))
}
