import XCTest
import Foundation
import FunnelModel
import LogFiles
import LogSources
@testable import LineParsing

/// Vendor lines through `LineParser.run` with a source (`VendorLine`): the batch holds the
/// vendor's line as the stored line, kept verbatim, and an envelope that reads as the event
/// the source maps the line to.
final class VendorLineTests: XCTestCase {
    private let sampleData = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("sample-data")

    private func parse(_ path: String, _ mapping: SourceMapping) throws -> [(line: [UInt8], parsed: ParsedLine, event: Event?)] {
        var out: [(line: [UInt8], parsed: ParsedLine, event: Event?)] = []
        let end = try LineParser.run(path: path, batchLines: 100, batchBytes: 1 << 16, source: mapping) { batch in
            batch.bytes.withUnsafeBufferPointer { b in
                for line in batch.lines {
                    let bytes = Array(b[line.start..<(line.start + line.count)])
                    out.append((bytes, line, line.envelope.map { EventDecoder().event(from: $0, in: b) }))
                }
            }
            return true
        }
        XCTAssertNil(end.error)
        return out
    }

    func testEveryLineOfAVendorFileReadsAsItsMappedEventAndIsKeptVerbatim() throws {
        let mapping = SourceMapping(try XCTUnwrap(SourcePresets.named("posthog")))
        let path = sampleData.appendingPathComponent("sources/posthog/events-2026-10-02.json.gz").path
        let lines = try parse(path, mapping)
        XCTAssertGreaterThan(lines.count, 400)
        for (line, parsed, event) in lines {
            guard case .success(let mapped) = mapping.map(bytes: line) else { return XCTFail(String(decoding: line, as: UTF8.self)) }
            XCTAssertEqual(event, mapped.event)
            XCTAssertEqual(parsed.keys.shape, -1)
            XCTAssertNil(parsed.rejection)
        }
    }

    func testEscapedValuesAndRejectionsKeepTheVendorsLineAndWords() throws {
        let escaped = #"{"distinct_id":"u\"1\u00e9","event":"Step Completed","properties":{"flow":"shieldai","step":"a\\b","note":"x\ny"},"timestamp":"2026-10-01T10:21:50.131+09:00","uuid":"id-1"}"#
        let noID = #"{"distinct_id":"u2","event":"Step Completed","properties":{"flow":"shieldai"},"timestamp":"2026-10-01T10:21:50.131+09:00"}"#
        let pageview = #"{"distinct_id":"u3","event":"$pageview","properties":{},"timestamp":"2026-10-01T10:21:51+09:00","uuid":"id-3"}"#
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vendorline-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data([escaped, noID, pageview].joined(separator: "\n").utf8).write(to: file)
        let lines = try parse(file.path, SourceMapping(try XCTUnwrap(SourcePresets.named("posthog")), defaultFlow: "glp1"))
        XCTAssertEqual(lines.map { String(decoding: $0.line, as: UTF8.self) }, [escaped, noID, pageview])
        let first = try XCTUnwrap(lines[0].event)
        XCTAssertEqual(first.userID, "u\"1é")
        XCTAssertEqual(first.step, "a\\b")
        XCTAssertEqual(first.name, "onboarding.step_completed")
        XCTAssertEqual(first.properties["note"], .string("x\ny"))
        XCTAssertNil(lines[1].event)
        XCTAssertEqual(lines[1].parsed.rejection?.code, .missingField)
        XCTAssertEqual(lines[1].parsed.rejection?.text, "posthog: no uuid")
        XCTAssertEqual(lines[1].parsed.offset, Int64(escaped.utf8.count + 1))
        XCTAssertEqual(lines[2].event?.name, "$pageview")
        XCTAssertEqual(lines[2].event?.flow, "glp1")
    }

    /// The envelope taken from the cutter's ranges is the one `EventDecoder` finds in the
    /// native line, for every line of every vendor sample and the native samples written as
    /// each preset (offsets, flags, step views, Unix and UTC times); a line with an escape in
    /// its envelope is decoded.
    func testTheCuttersEnvelopeIsTheDecodersForEveryPresetLine() throws {
        var native: [[UInt8]] = []
        for flow in ["glp1", "shieldai"] {
            let folder = sampleData.appendingPathComponent(flow)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
                let reader = LineReader(stream: try ByteStream(path: folder.appendingPathComponent(name).path))
                try reader.forEachLine { _, bytes in native.append(Array(bytes)) }
            }
        }
        let events = try native.map { try EventDecoder.decode(bytes: $0).get() }
        XCTAssertGreaterThan(events.count, 18_000)
        for name in ["posthog", "segment", "rudderstack", "amplitude", "mixpanel"] {
            let source = try XCTUnwrap(SourcePresets.named(name))
            let writer = SourceWriter(source)
            var cutter = SourceCutter(SourceMapping(source))
            var decoder = EventDecoder()
            var direct = 0
            var lines = try events.map { try writer.line(for: $0) }
            lines.append(Array(#"{"uuid":"e\"1","event":"x","distinct_id":"u","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"f"}}"#.utf8))
            for line in lines {
                let (got, decoded) = line.withUnsafeBufferPointer { VendorLine.decode($0, cutter: &cutter, decoder: &decoder) }
                var reference = EventDecoder()
                let want = cutter.line.withUnsafeBufferPointer { reference.envelope($0) }
                if case .failure = got { continue }
                XCTAssertEqual(got, want, "\(name): \(String(decoding: line, as: UTF8.self))")
                if !decoded { direct += 1 }
            }
            XCTAssertEqual(direct, events.count, "\(name): every plain line takes the cutter's ranges")
        }
    }
}
