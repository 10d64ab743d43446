import XCTest
import Foundation

final class IngestCommandTests: XCTestCase {
    /// Every input failure is said on standard error as `funnel ingest: …`; data in a
    /// compressor funnel does not read is refused by name; zstd reads, from stdin too.
    func testInputFailuresAreSaidOnStandardError() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures/compressed")
        let xz = fixtures.appendingPathComponent("xz-named.ndjson.gz").path
        let refused = try runFunnel(["ingest", "--store", store, xz])
        XCTAssertEqual(refused.status, 2)
        XCTAssertEqual(refused.stderr, "funnel ingest: not read: \(xz): xz data, not gzip: decompress it first (nothing stored)\n")
        let corrupt = sampleData.appendingPathComponent("bad/corrupt.ndjson.gz").path
        let partial = try runFunnel(["ingest", "--store", store, corrupt])
        XCTAssertEqual(partial.status, 2)
        XCTAssertTrue(partial.stderr.hasPrefix("funnel ingest: partial: \(corrupt): byte "), partial.stderr)
        let zst = try runFunnel(["ingest", "--store", store, "--format", "json", "-"],
                                stdin: fixtures.appendingPathComponent("events.ndjson.zst"))
        XCTAssertEqual(zst.status, 0, zst.stderr)
        XCTAssertEqual(try jsonObject(zst.stdout)["accepted"] as? Int, 20)
    }

    func testExitCodesAndJSONInvariant() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        let bad = try runFunnel(["ingest", "--store", store, "--format", "json", sampleData.appendingPathComponent("bad").path])
        XCTAssertEqual(bad.status, 2, bad.stderr)
        let o = try jsonObject(bad.stdout)
        let n = { (k: String) in (o[k] as? Int) ?? -1 }
        XCTAssertEqual(n("files"), 10)
        XCTAssertEqual(n("quarantined"), 41)
        XCTAssertEqual(n("lines"), n("accepted") + n("duplicates") + n("conflicts") + n("quarantined"))
        XCTAssertEqual((o["failures"] as? [[String: Any]])?.compactMap { $0["kind"] as? String }, ["corrupt", "truncated"])

        let q = try runFunnel(["quarantine", "--store", store, "--format", "json"])
        XCTAssertEqual(q.status, 0)
        let qo = try jsonObject(q.stdout)
        XCTAssertEqual(qo["count"] as? Int, 41)
        let first = (qo["lines"] as? [[String: Any]])?.first
        XCTAssertEqual(first?["path"] as? String, sampleData.appendingPathComponent("bad/bad-timestamp.ndjson").path)
        XCTAssertEqual(first?["code"] as? String, "bad_timestamp")
        XCTAssertEqual(first?["line"] as? Int, 2)
        let utf8 = (qo["lines"] as? [[String: Any]])?.first { $0["code"] as? String == "invalid_utf8" }
        XCTAssertTrue(utf8?["raw_text"] is NSNull)
        let raw = Data(base64Encoded: utf8?["raw_base64"] as? String ?? "")
        XCTAssertEqual(raw?.contains(0xFF), true)
        let text = try runFunnel(["quarantine", "--store", store])
        XCTAssertTrue(text.stdout.contains("bad-timestamp.ndjson:2 (byte 247) [bad_timestamp]\n    bad timestamp"), text.stdout)
        // Every line but the one naming the (absolute) input path fits 80 columns.
        XCTAssertTrue(text.stdout.split(separator: "\n").filter { !$0.hasPrefix("/") }.allSatisfy { $0.count <= 80 }, text.stdout)

        let strictStore = tempDir().appendingPathComponent("t.sqlite").path
        let notJSON = sampleData.appendingPathComponent("bad/not-json.ndjson").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", strictStore, "--strict", notJSON]).status, 1)
        let okStore = tempDir().appendingPathComponent("u.sqlite").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", okStore, notJSON]).status, 0)
        let missing = try runFunnel(["ingest", "--store", okStore, "/nonexistent/file.ndjson"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("/nonexistent/file.ndjson"), missing.stderr)
    }

    func testStandardInputStoreFromEnvironmentAndReingest() throws {
        let dir = tempDir()
        let store = dir.appendingPathComponent("env.sqlite").path
        var env = ProcessInfo.processInfo.environment
        env["FUNNEL_STORE"] = store
        let file = sampleData.appendingPathComponent("edge/duplicates.ndjson")
        let first = try runFunnel(["ingest", "-"], stdin: file, environment: env)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.contains("accepted                5"), first.stdout)
        XCTAssertTrue(first.stdout.split(separator: "\n").filter { !$0.contains(store) }.allSatisfy { $0.count <= 80 }, first.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: store))
        // The same content again, now as a file: nothing is added and the output says so.
        let again = try runFunnel(["ingest", "--format", "json", file.path], environment: env)
        XCTAssertEqual(again.status, 0)
        let o = try jsonObject(again.stdout)
        XCTAssertEqual(o["lines"] as? Int, 0)
        XCTAssertEqual((o["skipped"] as? [[String: Any]])?.first?["previous_path"] as? String, "-")
        let text = try runFunnel(["ingest", file.path], environment: env)
        // Long lines wrap onto indented lines: joined again, the line says where it came from.
        XCTAssertTrue(text.stdout.replacingOccurrences(of: "\n    ", with: " ").contains("\(file.path): already ingested as - (complete)"), text.stdout)
    }
}
