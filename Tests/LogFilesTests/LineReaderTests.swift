import XCTest
@testable import LogFiles

final class LineReaderTests: XCTestCase {
    func write(_ bytes: [UInt8], _ name: String = "a.ndjson") throws -> String {
        let path = tempDir().appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testNumbersOffsetsCRLFAndFinalLineWithoutNewline() throws {
        let text = "one\r\ntwo\n\nfour\r\nfive"
        let path = try write(Array(text.utf8))
        for chunk in [16, 17, 1 << 18] {
            let (lines, error, reader) = readLines(path, chunk: chunk)
            XCTAssertNil(error)
            XCTAssertEqual(lines.map { String(decoding: $0.1, as: UTF8.self) }, ["one", "two", "", "four", "five"])
            XCTAssertEqual(lines.map(\.0.number), [1, 2, 3, 4, 5])
            XCTAssertEqual(lines.map(\.0.offset), [0, 5, 9, 10, 16])
            XCTAssertEqual(lines.map(\.0.length), [3, 3, 0, 4, 4])
            XCTAssertEqual(reader?.bytesConsumed, Int64(text.utf8.count))
        }
    }

    func testTrailingNewlineMakesNoExtraLine() throws {
        let (lines, _, _) = readLines(try write(Array("a\nb\n".utf8)))
        XCTAssertEqual(lines.count, 2)
        let (none, _, _) = readLines(try write([]))
        XCTAssertEqual(none.count, 0)
    }

    func testOversizedLinesAreCutAndCounted() throws {
        // Limit 10 bytes: an 11-byte line is oversized, a 10-byte line with CRLF is not.
        let text = "0123456789\r\n0123456789A\nshort\n" + String(repeating: "x", count: 100) + "\r\nend"
        let path = try write(Array(text.utf8))
        for chunk in [16, 23, 4096] {
            let (lines, error, _) = readLines(path, maxLineLength: 10, chunk: chunk)
            XCTAssertNil(error)
            XCTAssertEqual(lines.map(\.0.isOversized), [false, true, false, true, false], "chunk \(chunk)")
            XCTAssertEqual(lines.map(\.0.length), [10, 11, 5, 100, 3], "chunk \(chunk)")
            XCTAssertEqual(lines.map(\.0.offset), [0, 12, 24, 30, 132], "chunk \(chunk)")
            XCTAssertEqual(String(decoding: lines[3].1, as: UTF8.self), "xxxxxxxxxx")
            XCTAssertEqual(String(decoding: lines[1].1, as: UTF8.self), "0123456789")
        }
    }

    func testMultiMemberGzipLinesSpanMembers() throws {
        let path = tempDir().appendingPathComponent("m.ndjson.gz").path
        let w = try GzipWriter(path: path)
        try w.writeMember("a1\na")
        try w.writeMember("2\nb1\n")
        try w.writeMember("c1")
        let (lines, error, _) = readLines(path, chunk: 16)
        XCTAssertNil(error)
        XCTAssertEqual(lines.map { String(decoding: $0.1, as: UTF8.self) }, ["a1", "a2", "b1", "c1"])
        XCTAssertEqual(lines.map(\.0.offset), [0, 3, 6, 9])
    }

    func testTruncatedGzipKeepsCompleteLinesAndStops() throws {
        let path = sampleData.appendingPathComponent("bad/truncated.ndjson.gz").path
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        let (lines, error, reader) = readLines(path)
        XCTAssertEqual(lines.count, 8)
        let e = try XCTUnwrap(error as? InputError)
        XCTAssertEqual(e.kind, .truncated)
        XCTAssertEqual(Int(e.offset), size)
        // No byte of the cut member reaches the reader.
        XCTAssertEqual(reader?.droppedTailBytes, 0)
        for (_, bytes) in lines { XCTAssertNoThrow(try decode(bytes).get()) }
    }

    func testCorruptGzipKeepsTheFirstMember() throws {
        let (lines, error, _) = readLines(sampleData.appendingPathComponent("bad/corrupt.ndjson.gz").path)
        XCTAssertEqual(lines.count, 4)
        XCTAssertEqual((error as? InputError)?.kind, .corrupt)
    }

    func testDiscoveryWalksDirectoriesInNameOrder() throws {
        let dir = tempDir()
        let fm = FileManager.default
        for name in ["b/2.ndjson.gz", "b/1.jsonl", "a.ndjson", "c.txt", "B.jsonl", ".hidden.ndjson", "b/sub/0.ndjson"] {
            let url = dir.appendingPathComponent(name)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data().write(to: url)
        }
        let found = try InputSource.discover([dir.path, "-", dir.appendingPathComponent("c.txt").path])
        let rel = found.map { $0.path.replacingOccurrences(of: dir.path + "/", with: "") }
        XCTAssertEqual(rel, ["B.jsonl", "a.ndjson", "b/1.jsonl", "b/2.ndjson.gz", "b/sub/0.ndjson", "-", "c.txt"])
        XCTAssertThrowsError(try InputSource.discover([dir.appendingPathComponent("missing.ndjson").path])) { e in
            XCTAssertEqual((e as? InputError)?.kind, .unreadable)
        }
    }

    /// What a directory held besides logs is named (hidden files are not), and a directory
    /// with no log at any depth is said to be empty; a file given by name is never skipped.
    func testDiscoveryNamesWhatItLeavesOut() throws {
        let dir = tempDir()
        let fm = FileManager.default
        for name in ["logs/events.log.gz", "logs/a.ndjson", "logs/notes.txt", "logs/.hidden", "empty/sub/events.json",
                     "bare/.x.ndjson"] {
            let url = dir.appendingPathComponent(name)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data().write(to: url)
        }
        try fm.createDirectory(at: dir.appendingPathComponent("none"), withIntermediateDirectories: true)
        var skipped = InputSource.Skipped()
        let paths = ["logs", "empty", "bare", "none", "logs/notes.txt"].map { dir.appendingPathComponent($0).path }
        let found = try InputSource.discover(paths, skipped: &skipped)
        XCTAssertEqual(found.map(\.path), [dir.appendingPathComponent("logs/a.ndjson").path, paths[4]])
        XCTAssertEqual(skipped.files, ["logs/events.log.gz", "logs/notes.txt", "empty/sub/events.json"].map { dir.appendingPathComponent($0).path })
        XCTAssertEqual(skipped.emptyDirectories, [paths[1], paths[2], paths[3]])
    }
}
