import XCTest
import Foundation
import TestSupport
@testable import LogFiles

/// A zip archive among the inputs is its log entries, in the order the unzipped folder is
/// walked; the other entries are named, an archive with no log is said, and one that cannot
/// be read is one input that fails with why.
final class InputSourceZipTests: XCTestCase {
    let folder = Scratch.directory("funnel-zip-discover")

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        try Scratch.file(bytes, named: name, in: folder)
    }

    static let amplitude = [".json.gz", ".json", ".zip"]

    func testAnArchivesLogEntriesComeInTheUnzippedFoldersOrderAndOthersAreNamed() throws {
        // Amplitude's hourly names: `#` sorts before the digits, as in the folder's walk.
        let names = ["123456/", "123456/123456_2026-10-01_10#0.json.gz", "123456/123456_2026-10-01_1#0.json.gz",
                     "123456/README.txt", "123456/123456_2026-10-01_0#0.json.gz", "123456.b/x.json", "123456/inner.zip",
                     "123456/sub/a.json", "123456/._hidden.json.gz"]
        let archive = try write(ZipFixture.archive(names.map { ZipFixture.Entry($0, Array("{}\n".utf8)) }).bytes, "export.zip")
        var skipped = InputSource.Skipped()
        let inputs = try InputSource.discover([archive], extensions: Self.amplitude, skipped: &skipped)
        XCTAssertEqual(inputs.map(\.path), ["123456/123456_2026-10-01_0#0.json.gz", "123456/123456_2026-10-01_1#0.json.gz",
                                            "123456/123456_2026-10-01_10#0.json.gz", "123456/sub/a.json", "123456.b/x.json"].map { archive + ":" + $0 })
        XCTAssertEqual(inputs.map { $0.zip?.archive }, Array(repeating: archive, count: 5))
        XCTAssertEqual(skipped.entries, ["123456/._hidden.json.gz", "123456/README.txt", "123456/inner.zip"].map { archive + ":" + $0 })
        XCTAssertEqual(skipped.files, [])
        XCTAssertEqual(skipped.emptyDirectories, [])

        // The same order as the walk of the folder unzipped.
        let unzipped = folder.appendingPathComponent("unzipped")
        for name in names where !name.hasSuffix("/") {
            let url = unzipped.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("{}\n".utf8).write(to: url)
        }
        var walked = InputSource.Skipped()
        let files = try InputSource.discover([unzipped.path], extensions: [".json.gz", ".json"], skipped: &walked)
        XCTAssertEqual(files.map { String($0.path.dropFirst(unzipped.path.count + 1)) },
                       inputs.map { String($0.path.dropFirst(archive.count + 1)) })
        // Given twice, read once.
        XCTAssertEqual(try InputSource.discover([archive, archive], extensions: Self.amplitude, skipped: &skipped).count, 5)
    }

    func testAnArchiveIsKnownByItsNameOrItsFirstBytesAndFoundInFolders() throws {
        let bytes = ZipFixture.archive([ZipFixture.Entry("h.json.gz", Array("{}\n".utf8))]).bytes
        let named = try write(bytes, "data.bin")
        var skipped = InputSource.Skipped()
        XCTAssertEqual(try InputSource.discover([named], extensions: Self.amplitude, skipped: &skipped).map(\.path), [named + ":h.json.gz"])
        // In a folder, as an export file when the source reads `.zip`.
        let dir = folder.appendingPathComponent("exports")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data(bytes).write(to: dir.appendingPathComponent("export.zip"))
        let found = try InputSource.discover([dir.path], extensions: Self.amplitude, skipped: &skipped)
        XCTAssertEqual(found.map(\.path), [dir.path + "/export.zip:h.json.gz"])
        var native = InputSource.Skipped()
        XCTAssertEqual(try InputSource.discover([dir.path], skipped: &native).count, 0)
        XCTAssertEqual(native.files, [dir.path + "/export.zip"])
    }

    func testAnArchiveWithNoLogIsSaidAndOneThatCannotBeReadFailsAsAnInput() throws {
        let empty = try write(ZipFixture.archive([ZipFixture.Entry("notes.txt", [1])]).bytes, "empty.zip")
        var skipped = InputSource.Skipped()
        XCTAssertEqual(try InputSource.discover([empty], extensions: Self.amplitude, skipped: &skipped), [])
        XCTAssertEqual(skipped.emptyDirectories, [empty])
        XCTAssertEqual(skipped.entries, [empty + ":notes.txt"])

        let page = try write(Array("<html>404</html>".utf8), "page.zip")
        let inputs = try InputSource.discover([page], extensions: Self.amplitude, skipped: &skipped)
        XCTAssertEqual(inputs.count, 1)
        XCTAssertEqual(inputs.first?.path, page)
        XCTAssertEqual(inputs.first?.fault?.kind, .corrupt)
        XCTAssertFalse(inputs.first?.isStandardInput ?? true)
        XCTAssertThrowsError(try ByteStream(input: try XCTUnwrap(inputs.first))) { e in
            XCTAssertEqual((e as? InputError)?.reason, "not a zip archive (no zip signature at its start and no end of central directory record)")
        }
    }
}
