import Foundation

/// Whether the POSIX locks this process holds on a file are still there, as another process
/// sees them (a process never sees its own locks).
public enum FileLocks {
    /// The exit status of another process that tries an exclusive lock on the whole of `path`
    /// without waiting: 0 when it got it, 1 when it was refused (-1: python3 did not start).
    public static func lockFromAnotherProcess(_ path: String) -> Int32 {
        let script = """
            import fcntl, sys
            f = open(sys.argv[1], "rb+")
            try:
                fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                sys.exit(1)
            sys.exit(0)
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script, path]
        do { try p.run() } catch { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }
}
