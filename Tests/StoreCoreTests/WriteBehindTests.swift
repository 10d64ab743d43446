import XCTest
import Foundation
@testable import StoreCore
import LogFiles
import TestSupport
#if os(Linux)
import Glibc
import CGlibc
#endif

/// The write-behind starts a file's write-out and never changes what it holds.
final class WriteBehindTests: XCTestCase {
    #if os(Linux)
    /// The call under it starts write-out of a file (0), and fails on a descriptor that is
    /// not one (EBADF): a wrong system call number or flag would give ENOSYS or EINVAL.
    func testWriteOutStartsOnAFileAndFailsOnABadDescriptor() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("writeout-\(UUID().uuidString)").path
        defer { unlink(path) }
        let bytes = [UInt8](repeating: 7, count: 1 << 20)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertEqual(funnel_start_writeout(fd), 0)
        XCTAssertEqual(funnel_start_writeout(-1), -1)
        XCTAssertEqual(errno, EBADF)
    }

    /// A held file (a store, whose POSIX locks SQLite holds) is written out through the
    /// descriptor this process holds on it, never one of its own: written under write-behind,
    /// it keeps its bytes, and another process still finds it locked.
    func testAHeldFileIsWrittenOutThroughTheProcessDescriptorAndKeepsItsLocks() throws {
        guard try PythonModules.require("fcntl", missing: "python3 is not installed") else { return }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("held-\(UUID().uuidString)").path
        defer { unlink(path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        XCTAssertNil(FileIdentity(path).heldDescriptor())
        let fd = open(path, O_RDWR | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        XCTAssertEqual(fcntl(fd, F_SETLK, &lock), 0)
        XCTAssertEqual(FileIdentity(path).heldDescriptor(), fd)

        let writeBehind = WriteBehind(paths: [], held: [path])
        var written: [UInt8] = []
        for i in 0..<64 {
            let chunk = [UInt8](repeating: UInt8(i), count: 64 << 10)
            XCTAssertEqual(chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }, chunk.count)
            written += chunk
            Thread.sleep(forTimeInterval: 0.001)
        }
        writeBehind.stop()
        // 1: refused, the lock held; 0: granted, a descriptor of the file was closed.
        XCTAssertEqual(FileLocks.lockFromAnotherProcess(path), 1, "the held file's lock was dropped")
        close(fd)
        XCTAssertNil(FileIdentity(path).heldDescriptor())
        XCTAssertEqual(FileManager.default.contents(atPath: path), Data(written))
    }
    #endif

    /// While a file is written, with a path that does not exist beside it: the file ends as
    /// written, and stopping twice returns.
    func testFilesWrittenUnderItKeepTheirBytes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("writebehind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("store").path
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: nil))
        let writeBehind = WriteBehind(paths: [file, dir.appendingPathComponent("missing").path])
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: file))
        var written = Data()
        for i in 0..<64 {
            let chunk = Data(repeating: UInt8(i), count: 64 << 10)
            handle.write(chunk)
            written.append(chunk)
            Thread.sleep(forTimeInterval: 0.001)
        }
        try handle.close()
        writeBehind.stop()
        writeBehind.stop()
        XCTAssertEqual(FileManager.default.contents(atPath: file), written)
    }
}
