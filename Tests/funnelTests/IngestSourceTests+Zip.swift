import Foundation
import XCTest
import TestSupport
import GRDB

/// Amplitude's export as downloaded: a zip of hourly `.json.gz` files in a folder named by
/// the project id, ingested as it is, against the same files unzipped.
extension IngestSourceTests {
    static let project = "123456"

    var amplitudeFolder: URL { sampleData.appendingPathComponent("sources/amplitude") }

    /// The sample Amplitude export as the Export API answers it (deflate, as `zip` writes),
    /// with a stray entry beside the hourly files.
    func amplitudeZip(method: ZipFixture.Method = .deflate, _ name: String = "export.zip") throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: amplitudeFolder.path).sorted()
        var entries = [ZipFixture.Entry("\(Self.project)/", [], method: .stored)]
        entries += try names.map { ZipFixture.Entry("\(Self.project)/\($0)", Array(try Data(contentsOf: amplitudeFolder.appendingPathComponent($0))), method: method) }
        entries.append(ZipFixture.Entry("\(Self.project)/manifest.txt", Array("hours\n".utf8)))
        let path = tmp.appendingPathComponent(name).path
        try Data(ZipFixture.archive(entries).bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testAmplitudesZipAsDownloadedIngestsAsItsFilesUnzipped() throws {
        let folder = store("folder")
        let f = try ingest(folder, ["--source", "amplitude", amplitudeFolder.path])
        let expected = try outputs(folder)
        for method in [ZipFixture.Method.deflate, .stored] {
            let zip = try amplitudeZip(method: method, "export-\(method).zip")
            let s = store("zip-\(method)")
            let r = try runFunnel(["ingest", "--store", s, "--format", "json", "--source", "amplitude", zip])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(unwrapped(r.stderr), """
                funnel ingest: warning: left out 1 zip entry not named as logs (.json.gz, .json, .jsonl, .jsonl.gz, .ndjson, .ndjson.gz): \(zip):\(Self.project)/manifest.txt; unzip the archive and give a file by name to read it

                """)
            let z = try jsonObject(r.stdout)
            for key in ["files", "lines", "accepted", "duplicates", "conflicts", "quarantined", "unplanned"] {
                XCTAssertEqual(z[key] as? Int, f[key] as? Int, "\(method): \(key)")
            }
            XCTAssertEqual(z["files"] as? Int, 101)
            XCTAssertEqual(z["accepted"] as? Int, 2_727)
            let got = try outputs(s)
            for (key, text) in expected.sorted(by: { $0.key < $1.key }) {
                XCTAssertEqual(got[key], text, "\(method): \(key)")
            }
            // The vendor's lines back, as from the folder; the inputs named ARCHIVE:ENTRY,
            // with the unzipped files' hashes and sizes.
            XCTAssertEqual(try runFunnel(["export", "--store", s]).stdout, try runFunnel(["export", "--store", folder]).stdout)
            let inputs = try DatabaseQueue(path: s).read { try Row.fetchAll($0, sql: "SELECT path, sha256, size, lines FROM inputs ORDER BY id") }
            let folderInputs = try DatabaseQueue(path: folder).read { try Row.fetchAll($0, sql: "SELECT path, sha256, size, lines FROM inputs ORDER BY id") }
            XCTAssertEqual(inputs.map { $0[0] as String }, folderInputs.map { ($0[0] as String).replacingOccurrences(of: amplitudeFolder.path, with: "\(zip):\(Self.project)") })
            XCTAssertEqual(inputs.map { "\($0[1] as String) \($0[2] as Int64) \($0[3] as Int)" },
                           folderInputs.map { "\($0[1] as String) \($0[2] as Int64) \($0[3] as Int)" })
        }
    }

    func testTheSameZipAgainIsSkippedAndTheSameLinesAgainAreDuplicates() throws {
        let zip = try amplitudeZip()
        let s = store("again")
        let first = try ingest(s, ["--source", "amplitude", zip])
        let lines = try XCTUnwrap(first["lines"] as? Int)
        // The same archive, and the folder it was made of: every entry's content is known.
        for input in [zip, amplitudeFolder.path] {
            let again = try ingest(s, ["--source", "amplitude", input])
            XCTAssertEqual(again["lines"] as? Int, 0)
            let skipped = try XCTUnwrap(again["skipped"] as? [[String: Any]])
            XCTAssertEqual(skipped.count, 101)
            XCTAssertEqual(skipped.first?["previous_path"] as? String, "\(zip):\(Self.project)/events-2026-10-01-01.json.gz")
        }
        // The same lines in another archive (plain JSON lines, stored): each a duplicate.
        let names = try FileManager.default.contentsOfDirectory(atPath: amplitudeFolder.path).sorted()
        let plain = try names.map { name in
            ZipFixture.Entry("\(Self.project)/\(name.replacingOccurrences(of: ".gz", with: ""))",
                             Array((try vendorLines(amplitudeFolder.appendingPathComponent(name)).map { $0 + "\n" }.joined()).utf8), method: .stored)
        }
        let plainZip = tmp.appendingPathComponent("plain.zip").path
        try Data(ZipFixture.archive(plain).bytes).write(to: URL(fileURLWithPath: plainZip))
        let duplicates = try ingest(s, ["--source", "amplitude", plainZip])
        XCTAssertEqual(duplicates["lines"] as? Int, lines)
        XCTAssertEqual(duplicates["accepted"] as? Int, 0)
        XCTAssertEqual(duplicates["conflicts"] as? Int, 0)
        XCTAssertEqual(duplicates["duplicates"] as? Int, lines)
    }

    func testAnUnfinishedEntryGoesOnAfterItsLastCommittedLine() throws {
        let zip = try amplitudeZip()
        let s = store("resume")
        let first = try ingest(s, ["--source", "amplitude", zip])
        let entry = "\(zip):\(Self.project)/events-2026-10-02-16.json.gz"
        let entryLines = try DatabaseQueue(path: s).write { db -> Int in
            try db.execute(sql: "UPDATE inputs SET outcome = 'partial', resume_line = 3, resume_shapes = 0 WHERE path = ?", arguments: [entry])
            return try Int.fetchOne(db, sql: "SELECT lines FROM inputs WHERE path = ?", arguments: [entry]) ?? 0
        }
        XCTAssertGreaterThan(entryLines, 3)
        let again = try ingest(s, ["--source", "amplitude", zip])
        let resumed = try XCTUnwrap(again["resumed"] as? [[String: Any]])
        XCTAssertEqual(resumed.map { $0["path"] as? String }, [entry])
        XCTAssertEqual(resumed.map { $0["after_line"] as? Int }, [3])
        XCTAssertEqual(again["lines"] as? Int, entryLines - 3)
        XCTAssertEqual((again["skipped"] as? [Any])?.count, 100)
        XCTAssertEqual(again["quarantined"] as? Int, 0)
        XCTAssertEqual(first["files"] as? Int, again["files"] as? Int)
    }

    func testBadZipsAreNamedWithTheEntryTheByteAndWhyAndTheRunGoesOn() throws {
        let good = amplitudeFolder.appendingPathComponent("events-2026-10-01-01.json.gz")
        let hour = Array(try Data(contentsOf: good))
        func archive(_ name: String, _ entries: [ZipFixture.Entry], damage: (inout [UInt8], [ZipFixture.Placed]) -> Void = { _, _ in }) throws -> String {
            var (bytes, layout) = ZipFixture.archive(entries)
            damage(&bytes, layout)
            let path = tmp.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        let notZip = tmp.appendingPathComponent("error.zip").path
        try Data(#"{"error":"Invalid API key"}"#.utf8).write(to: URL(fileURLWithPath: notZip))
        let whole = ZipFixture.archive([ZipFixture.Entry("h/0.json.gz", hour)]).bytes
        let cut = tmp.appendingPathComponent("cut.zip").path
        try Data(whole[0..<(whole.count / 2)]).write(to: URL(fileURLWithPath: cut))
        let crc = try archive("crc.zip", [ZipFixture.Entry("h/0.json.gz", hour, method: .stored, crc32: 7)])
        let method = try archive("bzip2.zip", [ZipFixture.Entry("h/0.json.gz", hour, method: .stored, methodNumber: 12)])
        let corruptGzip = Array(try Data(contentsOf: sampleData.appendingPathComponent("bad/corrupt.ndjson.gz")))
        let inner = try archive("inner.zip", [ZipFixture.Entry("h/1.json.gz", corruptGzip)])
        let s = store("bad")
        let r = try runFunnel(["ingest", "--store", s, "--format", "json", "--source", "amplitude", "--flow", "shieldai",
                               notZip, cut, crc, method, inner, good.path])
        XCTAssertEqual(r.status, 2, r.stderr)
        let summary = try jsonObject(r.stdout)
        XCTAssertEqual(summary["accepted"] as? Int, vendorLinesCount(good))
        let failures = try XCTUnwrap(summary["failures"] as? [[String: Any]])
        XCTAssertEqual(failures.map { $0["path"] as? String }, [notZip, cut, crc + ":h/0.json.gz", method + ":h/0.json.gz", inner + ":h/1.json.gz"])
        XCTAssertEqual(failures.map { $0["kind"] as? String }, ["corrupt", "truncated", "corrupt", "unsupported", "corrupt"])
        let messages = failures.map { $0["message"] as? String ?? "" }
        XCTAssertEqual(messages[0], "\(notZip): byte 0: corrupt zip archive: not a zip archive (no zip signature at its start and no end of central directory record)")
        XCTAssertEqual(messages[1], "\(cut): byte \(whole.count / 2): truncated zip archive: no end of central directory record: the archive is cut short (a download that did not finish?)")
        XCTAssertTrue(messages[2].hasPrefix("\(crc): byte \(30 + 11 + hour.count): corrupt zip archive: entry h/0.json.gz: CRC-32 mismatch: its data gives "), messages[2])
        XCTAssertTrue(messages[2].hasSuffix(", the directory says 00000007"), messages[2])
        XCTAssertEqual(messages[3], "\(method): entry h/0.json.gz: compressed with bzip2 (method 12); funnel reads stored and deflate entries: unzip it first")
        // Found before anything of the entry was read: nothing stored, as the run says.
        XCTAssertTrue(unwrapped(r.stderr).contains("funnel ingest: not read: \(messages[2]) (nothing stored)"), r.stderr)
        XCTAssertTrue(unwrapped(r.stderr).contains("funnel ingest: partial: \(messages[4]) (kept "), r.stderr)
        // The inner gzip's fault is the unzipped file's, named by the entry.
        let unzipped = tmp.appendingPathComponent("1.json.gz")
        try Data(corruptGzip).write(to: unzipped)
        let file = try runFunnel(["ingest", "--store", store("file"), "--format", "json", "--source", "amplitude", "--flow", "shieldai", unzipped.path])
        let fileFailure = try XCTUnwrap((try jsonObject(file.stdout)["failures"] as? [[String: Any]])?.first)
        XCTAssertEqual(messages[4], (fileFailure["message"] as? String)?.replacingOccurrences(of: unzipped.path, with: inner + ":h/1.json.gz"))
        XCTAssertEqual(failures[4]["offset"] as? Int, fileFailure["offset"] as? Int)
        XCTAssertEqual(failures[4]["lines_kept"] as? Int, fileFailure["lines_kept"] as? Int)
        // Nothing of an entry the archive's check refused is in the ledger: fixed, it is read.
        let inputs = try DatabaseQueue(path: s).read { try String.fetchAll($0, sql: "SELECT path FROM inputs ORDER BY id") }
        XCTAssertEqual(inputs, [inner + ":h/1.json.gz", good.path])
    }

    func vendorLinesCount(_ url: URL) -> Int { (try? vendorLines(url).count) ?? -1 }
}
