import XCTest
import Foundation
import TestSupport
@testable import LogFiles

/// A zip archive's directory as Amplitude's export, `zip` and ZIP64 writers lay it out, and
/// each way an archive cannot be read, named with its byte.
final class ZipArchiveTests: XCTestCase {
    func write(_ bytes: [UInt8], _ name: String = "export.zip") throws -> String {
        let path = Scratch.directory("funnel-zip").appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func error(_ body: () throws -> Void) -> InputError? {
        do { try body() } catch { return error as? InputError }
        return nil
    }

    let entries = [ZipFixture.Entry("123456/", [], method: .stored),
                   ZipFixture.Entry("123456/123456_2026-10-01_0#0.json.gz", Array(repeating: 7, count: 5_000)),
                   ZipFixture.Entry("123456/123456_2026-10-01_1#0.json.gz", Array("{}\n".utf8), method: .stored)]

    func testTheDirectoryGivesEachEntrysNameSizesAndPlace() throws {
        for zip64 in [false, true] {
            let (bytes, layout) = ZipFixture.archive(entries, zip64: zip64)
            let archive = try ZipArchive.read(path: try write(bytes))
            XCTAssertEqual(archive.entries.map(\.name), entries.map(\.name))
            XCTAssertEqual(archive.entries.map(\.isDirectory), [true, false, false])
            XCTAssertEqual(archive.entries.map(\.size), [0, 5_000, 3])
            XCTAssertEqual(archive.entries.map(\.compressedSize), layout.map { Int64($0.compressedSize) })
            XCTAssertLessThan(archive.entries[1].compressedSize, 100, "deflated")
            XCTAssertEqual(archive.entries.map(\.headerOffset), layout.map { Int64($0.headerOffset) })
            XCTAssertEqual(archive.entries.map(\.method), [0, 8, 0])
            XCTAssertEqual(archive.entries[1].crc32, ZipFixture.crc32(entries[1].data))
            XCTAssertEqual(archive.entries[2].fileName, "123456_2026-10-01_1#0.json.gz")
        }
    }

    func testAnEmptyArchiveHasNoEntries() throws {
        let archive = try ZipArchive.read(path: try write(ZipFixture.archive([]).bytes))
        XCTAssertEqual(archive.entries, [])
    }

    func testAFileThatIsNoArchiveIsNamedSo() throws {
        let path = try write(Array(#"{"error":"invalid api key"}"#.utf8))
        let e = error { _ = try ZipArchive.read(path: path) }
        XCTAssertEqual(e?.kind, .corrupt)
        XCTAssertEqual(e?.offset, 0)
        XCTAssertEqual(e?.description, "\(path): byte 0: corrupt zip archive: not a zip archive (no zip signature at its start and no end of central directory record)")
        let empty = try write([], "empty.zip")
        XCTAssertEqual(error { _ = try ZipArchive.read(path: empty) }?.kind, .corrupt)
    }

    func testAnArchiveCutShortIsTruncatedAtItsEnd() throws {
        let bytes = ZipFixture.archive(entries).bytes
        for cut in [bytes.count - 1, bytes.count - 30, 40] {
            let path = try write(Array(bytes[0..<cut]))
            let e = error { _ = try ZipArchive.read(path: path) }
            XCTAssertEqual(e?.kind, .truncated, "cut at \(cut)")
            XCTAssertEqual(e?.offset, Int64(cut))
            XCTAssertEqual(e?.description, "\(path): byte \(cut): truncated zip archive: no end of central directory record: the archive is cut short (a download that did not finish?)")
        }
    }

    func testADamagedDirectoryIsCorruptAtItsByte() throws {
        var bytes = ZipFixture.archive(entries).bytes
        let directory = try ZipArchive.read(path: try write(bytes))
        XCTAssertEqual(directory.entries.count, 3)
        // The second central header's signature damaged.
        let second = bytes.count - 22 - (46 + entries[1].name.utf8.count) - (46 + entries[2].name.utf8.count)
        XCTAssertEqual(Array(bytes[second..<(second + 4)]), [0x50, 0x4B, 0x01, 0x02])
        bytes[second] = 0
        let path = try write(bytes)
        let e = error { _ = try ZipArchive.read(path: path) }
        XCTAssertEqual(e?.kind, .corrupt)
        XCTAssertEqual(e?.offset, Int64(second))
        XCTAssertEqual(e?.reason, "no central directory header for entry 2 of 3")
    }

    func testAnArchiveSplitAcrossDisksIsUnsupported() throws {
        var bytes = ZipFixture.archive(entries).bytes
        bytes[bytes.count - 22 + 4] = 2
        let path = try write(bytes)
        let e = error { _ = try ZipArchive.read(path: path) }
        XCTAssertEqual(e?.kind, .unsupported)
        XCTAssertEqual(e?.description, "\(path): the archive is split across disks (disk 2): join its parts first")
    }
}
