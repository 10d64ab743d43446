import XCTest
import Foundation
@testable import StoreCore
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
