import Foundation
import XCTest
import TestSupport
import GRDB

/// `funnel ingest --source`: vendor exports (sample-data/sources) ingested as the built binary
/// runs them, against the native sample they were written from (sample-data/shieldai).
final class IngestSourceTests: XCTestCase {
    static let vendors = ["posthog", "segment", "rudderstack", "amplitude", "mixpanel"]

    var tmp = URL(fileURLWithPath: "/")

    override func setUpWithError() throws { tmp = tempDir() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    func ingest(_ store: String, _ args: [String]) throws -> [String: Any] {
        let r = try runFunnel(["ingest", "--store", store, "--format", "json"] + args)
        XCTAssertEqual(r.status, 0, r.stderr)
        return try jsonObject(r.stdout)
    }

    func store(_ name: String) -> String { tmp.appendingPathComponent("\(name).sqlite").path }

    /// Every report format and `users`, as the binary prints them for `store`.
    func outputs(_ store: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for format in ["text", "json", "csv", "markdown", "html"] {
            let r = try runFunnel(["report", "--store", store, "--flow", "shieldai", "--format", format])
            XCTAssertEqual(r.status, 0, r.stderr)
            out["report " + format] = r.stdout
        }
        for format in ["text", "csv", "json"] {
            let r = try runFunnel(["users", "--store", store, "--flow", "shieldai", "--format", format])
            XCTAssertEqual(r.status, 0, r.stderr)
            out["users " + format] = r.stdout
        }
        return out
    }

    func testEachVendorExportReportsAsTheNativeSample() throws {
        let native = store("native")
        let n = try ingest(native, [sampleData.appendingPathComponent("shieldai").path])
        let expected = try outputs(native)
        for vendor in Self.vendors {
            let s = store(vendor)
            let v = try ingest(s, ["--source", vendor, sampleData.appendingPathComponent("sources/\(vendor)").path])
            for key in ["lines", "accepted", "duplicates", "conflicts", "quarantined", "unplanned"] {
                XCTAssertEqual(v[key] as? Int, n[key] as? Int, "\(vendor): \(key)")
            }
            let got = try outputs(s)
            // Amplitude and Mixpanel write no UTC offset, but reports and users show none: the
            // same bytes for every vendor.
            for (key, text) in expected.sorted(by: { $0.key < $1.key }) {
                XCTAssertEqual(got[key], text, "\(vendor): \(key)")
            }
        }
    }

    /// Export gives back each vendor's lines byte for byte, though the store keeps them as
    /// shapes and the values cut out of them, as it keeps native lines: no line is verbatim,
    /// and the bodies hold under half the lines' bytes.
    func testExportGivesBackTheAcceptedVendorLinesByteForByte() throws {
        for vendor in Self.vendors {
            let s = store(vendor)
            let folder = sampleData.appendingPathComponent("sources/\(vendor)")
            _ = try ingest(s, ["--source", vendor, folder.path])
            let lines = try vendorLines(folder)
            var seen = Set<String>()
            let accepted = lines.filter { seen.insert($0).inserted }
            let export = try runFunnel(["export", "--store", s])
            XCTAssertEqual(export.status, 0, export.stderr)
            let exported = export.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            XCTAssertEqual(exported.count, accepted.count, vendor)
            XCTAssertEqual(exported.sorted(), accepted.sorted(), vendor)
            let (verbatim, bodyBytes) = try DatabaseQueue(path: s).read { db in
                (try Int.fetchOne(db, sql: "SELECT count(*) FROM events WHERE substr(body, 1, 1) = x'00'") ?? -1,
                 try Int.fetchOne(db, sql: "SELECT sum(length(body)) FROM events") ?? -1)
            }
            XCTAssertEqual(verbatim, 0, vendor)
            XCTAssertLessThan(bodyBytes * 2, accepted.reduce(0) { $0 + $1.utf8.count }, vendor)
        }
    }

    func testReingestingTheSameLinesDedupesEveryLine() throws {
        let s = store("posthog")
        let file = sampleData.appendingPathComponent("sources/posthog/events-2026-10-02.json.gz")
        let first = try ingest(s, ["--source", "posthog", file.path])
        // The same lines, not compressed: another content, so read again line by line.
        let plain = tmp.appendingPathComponent("again.json")
        try Data(try vendorLines(file).map { $0 + "\n" }.joined().utf8).write(to: plain)
        let again = try ingest(s, ["--source", "posthog", plain.path])
        XCTAssertEqual(again["lines"] as? Int, first["lines"] as? Int)
        XCTAssertEqual(again["accepted"] as? Int, 0)
        XCTAssertEqual(again["conflicts"] as? Int, 0)
        XCTAssertEqual(again["duplicates"] as? Int, first["lines"] as? Int)
    }

    func testBadVendorLinesAreQuarantinedWithNamedReasonsAndOtherEventsAreUnplanned() throws {
        let good = #"{"type":"track","messageId":"m1","userId":"u1","timestamp":"2026-10-01T10:00:00.000+02:00","event":"Onboarding Started","properties":{"flow":"shieldai"},"context":{"os":{"name":"iOS"}}}"#
        let noID = #"{"type":"track","userId":"u1","timestamp":"2026-10-01T10:00:01.000+02:00","event":"Step Completed","properties":{"flow":"shieldai","step":"welcome"}}"#
        let badUser = #"{"type":"track","messageId":"m3","userId":7,"timestamp":"2026-10-01T10:00:02.000+02:00","event":"Step Completed","properties":{"flow":"shieldai"}}"#
        let identify = #"{"type":"identify","messageId":"m4","userId":"u1","timestamp":"2026-10-01T10:00:03.000+02:00","traits":{"plan":"pro"}}"#
        let file = tmp.appendingPathComponent("events-2026-10-01.gz")
        let text = [good, noID, badUser, "{not json", identify].joined(separator: "\n") + "\n"
        let plain = tmp.appendingPathComponent("plain")
        try Data(text.utf8).write(to: plain)
        let gz = try runShell("gzip -c plain > events-2026-10-01.gz", environment: [:], directory: tmp)
        XCTAssertEqual(gz.status, 0, gz.stderr)
        let s = store("segment")
        let summary = try ingest(s, ["--source", "segment", "--flow", "shieldai", file.path])
        XCTAssertEqual(summary["lines"] as? Int, 5)
        XCTAssertEqual(summary["accepted"] as? Int, 2)
        XCTAssertEqual(summary["quarantined"] as? Int, 3)
        XCTAssertEqual(summary["unplanned"] as? Int, 1)
        let q = try jsonObject(try runFunnel(["quarantine", "--store", s, "--format", "json"]).stdout)
        let rows = try XCTUnwrap(q["lines"] as? [[String: Any]])
        XCTAssertEqual(rows.map { $0["line"] as? Int }, [2, 3, 4])
        XCTAssertEqual(rows.map { $0["code"] as? String }, ["missing_field", "not_a_string", "not_json"])
        XCTAssertEqual(rows.map { $0["reason"] as? String }, [
            "segment: no messageId",
            "segment: userId must be a string (byte \(Array(badUser.utf8).firstIndex(of: UInt8(ascii: "7"))! + 1))",
            "segment: not JSON at column 2: expected a string (byte 2)",
        ])
        let offsets = [good, noID, badUser].map { $0.utf8.count + 1 }
        XCTAssertEqual(rows.map { $0["byte_offset"] as? Int }, [offsets[0], offsets[0] + offsets[1], offsets[0] + offsets[1] + offsets[2]])
        XCTAssertEqual(rows.first?["raw_text"] as? String, noID)
        let export = try runFunnel(["export", "--store", s])
        XCTAssertEqual(export.stdout, good + "\n" + identify + "\n")
    }

    func testWithoutAFlowAnEventWithNoneIsQuarantined() throws {
        let line = #"{"type":"identify","messageId":"m4","userId":"u1","timestamp":"2026-10-01T10:00:03.000+02:00"}"#
        let file = tmp.appendingPathComponent("identify.json")
        try Data((line + "\n").utf8).write(to: file)
        let s = store("noflow")
        let summary = try ingest(s, ["--source", "segment", file.path])
        XCTAssertEqual(summary["quarantined"] as? Int, 1)
        let q = try jsonObject(try runFunnel(["quarantine", "--store", s, "--format", "json"]).stdout)
        XCTAssertEqual((q["lines"] as? [[String: Any]])?.first?["reason"] as? String, "segment: no properties.flow and no default flow")
    }

    func testAnUnfinishedInputGoesOnOnlyThroughTheSourceItBeganWith() throws {
        let s = store("resume")
        let file = sampleData.appendingPathComponent("sources/posthog/events-2026-10-03.json.gz").path
        let first = try ingest(s, ["--source", "posthog", file])
        // As a kill after the first segment leaves it: the ledger says to go on after line 100.
        try DatabaseQueue(path: s).write { try $0.execute(sql: "UPDATE inputs SET outcome = 'partial', resume_line = 100, resume_shapes = 0") }
        let native = try runFunnel(["ingest", "--store", s, file])
        XCTAssertEqual(native.status, 2, native.stdout)
        XCTAssertTrue(native.stderr.contains("it was begun with --source posthog, and this run reads it as funnel's own lines (no --source)"),
                      native.stderr)
        let flow = try runFunnel(["ingest", "--store", s, "--source", "posthog", "--flow", "glp1", file])
        XCTAssertEqual(flow.status, 2, flow.stdout)
        XCTAssertTrue(flow.stderr.contains("this run reads it with --source posthog --flow glp1"), flow.stderr)
        let again = try ingest(s, ["--source", "posthog", file])
        XCTAssertEqual(again["lines"] as? Int, (first["lines"] as? Int ?? 0) - 100)
        XCTAssertEqual(again["quarantined"] as? Int, 0)
    }

    /// The lines of a vendor file or folder's files (gzip or plain), in name order.
    func vendorLines(_ url: URL) throws -> [String] {
        var isDir: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir)
        let files = isDir.boolValue
            ? try FileManager.default.contentsOfDirectory(atPath: url.path).sorted().map { url.appendingPathComponent($0) }
            : [url]
        var out: [String] = []
        for f in files {
            let r = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "gzip -dcf \"$0\"", f.path])
            XCTAssertEqual(r.status, 0, r.stderr)
            out += r.stdout.split(separator: "\n").map(String.init)
        }
        return out
    }
}
