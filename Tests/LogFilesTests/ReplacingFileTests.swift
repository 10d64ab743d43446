import XCTest
import TestSupport
@testable import LogFiles

/// Outputs are written whole or not at all (`ReplacingFile`).
final class ReplacingFileTests: XCTestCase {
    func contents(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    func testUncommittedLeavesTheOldFileWholeAndNoTemporary() throws {
        let dir = Scratch.directory("replacing")
        let path = dir.appendingPathComponent("report.txt").path
        try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
        do {
            let file = try ReplacingFile(path: path)
            try Array("new, half written".utf8).withUnsafeBytes { try file.write($0) }
            XCTAssertTrue(FileManager.default.fileExists(atPath: file.temporary))
            XCTAssertEqual(try contents(path), "old\n")
        }
        XCTAssertEqual(try contents(path), "old\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["report.txt"])
    }

    func testCommitReplacesKeepingPermissionsAndLinks() throws {
        let dir = Scratch.directory("replacing")
        let path = dir.appendingPathComponent("report.txt").path
        try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(path, 0o600), 0)
        let link = dir.appendingPathComponent("latest.txt").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "report.txt")
        try ReplacingFile.write(Array("new\n".utf8), to: link)
        XCTAssertEqual(try contents(path), "new\n")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "report.txt")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["latest.txt", "report.txt"])
        // A new file: created, the temporary gone.
        try ReplacingFile.write(Array("x".utf8), to: dir.appendingPathComponent("new.txt").path)
        XCTAssertEqual(try contents(dir.appendingPathComponent("new.txt").path), "x")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).count, 3)
    }

    /// A gzip file written in place of another (`funnel sample --force`): the old bytes
    /// until `commit`, then the new members.
    func testGzipWriterReplacing() throws {
        let dir = Scratch.directory("replacing")
        let path = dir.appendingPathComponent("events-2026-10-01.ndjson.gz").path
        try "collector data\n".write(toFile: path, atomically: false, encoding: .utf8)
        do {
            let w = try GzipWriter(replacing: path)
            try w.writeMember("{\"a\":1}\n")
            XCTAssertEqual(try contents(path), "collector data\n")
        }
        XCTAssertEqual(try contents(path), "collector data\n")
        let w = try GzipWriter(replacing: path)
        try w.writeMember("{\"a\":1}\n")
        try w.writeMember("{\"b\":2}\n")
        try w.commit()
        let (lines, error, _) = readLines(path)
        XCTAssertNil(error)
        XCTAssertEqual(lines.map { String(decoding: $0.1, as: UTF8.self) }, ["{\"a\":1}", "{\"b\":2}"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["events-2026-10-01.ndjson.gz"])
    }

    func testAMissingFolderIsNamed() {
        XCTAssertThrowsError(try ReplacingFile.write([1], to: "/nonexistent/dir/x.txt")) { error in
            XCTAssertEqual("\(error)", "cannot write /nonexistent/dir/x.txt: No such file or directory")
        }
    }
}
