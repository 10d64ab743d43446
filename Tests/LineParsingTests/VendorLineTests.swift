import XCTest
import Foundation
import FunnelModel
import LogFiles
import LogSources
@testable import LineParsing

/// Vendor lines through `LineParser.run` with a source (`VendorLine`): the batch holds the
/// vendor's line as the stored line, with its shape and values, and an envelope that reads as the event
/// the source maps the line to.
final class VendorLineTests: XCTestCase {
    private let sampleData = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("sample-data")

    private func parse(_ path: String, _ mapping: SourceMapping) throws -> [(line: [UInt8], parsed: ParsedLine, event: Event?, rejection: Rejection?)] {
        var out: [(line: [UInt8], parsed: ParsedLine, event: Event?, rejection: Rejection?)] = []
        let end = try LineParser.run(path: path, batchLines: 100, batchBytes: 1 << 16, source: mapping) { batch in
            batch.bytes.withUnsafeBufferPointer { b in
                for line in batch.lines {
                    let bytes = Array(b[line.start..<(line.start + line.count)])
                    out.append((bytes, line, line.envelope.map { EventDecoder().event(from: $0, in: b) },
                             line.envelope == nil ? line.quarantineReason(in: batch.rejections) : nil))
                }
            }
            return true
        }
        XCTAssertNil(end.error)
        return out
    }

    /// Every line of each vendor's sample reads as the event its source maps it to, and is
    /// kept as a shape and cut values from which the line comes back byte for byte, with the
    /// user, flow, name and step taken from the envelope (as the store takes them from the
    /// row's atoms). The shapes repeat: under one for every ten lines.
    func testEveryLineOfAVendorFileReadsAsItsMappedEventAndIsKeptAsItsShape() throws {
        for name in ["posthog", "segment", "rudderstack", "amplitude", "mixpanel"] {
            let mapping = SourceMapping(try XCTUnwrap(SourcePresets.named(name)))
            let folder = sampleData.appendingPathComponent("sources/\(name)")
            var count = 0, skeletons = Set<[UInt8]>()
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
                let end = try LineParser.run(path: folder.appendingPathComponent(file).path, batchLines: 100, batchBytes: 1 << 16,
                                             source: mapping) { batch in
                    batch.bytes.withUnsafeBufferPointer { b in
                        for parsed in batch.lines {
                            let line = Array(b[parsed.start..<(parsed.start + parsed.count)])
                            let text = "\(name): \(String(decoding: line, as: UTF8.self))"
                            guard case .success(let mapped) = mapping.map(bytes: line), let env = parsed.envelope,
                                  let cuts = parsed.cuts(in: batch.cuts) else { return XCTFail(text) }
                            XCTAssertEqual(EventDecoder().event(from: env, in: b), mapped.event, text)
                            XCTAssertGreaterThanOrEqual(parsed.keys.shape, 0, text)
                            let (skeleton, back) = rebuilt(parsed, cuts, env, b)
                            XCTAssertEqual(back, line, text)
                            skeletons.insert(skeleton)
                            count += 1
                        }
                    }
                    return true
                }
                XCTAssertNil(end.error)
            }
            XCTAssertGreaterThan(count, 1_000, name)
            XCTAssertLessThan(skeletons.count * 10, count, "\(name): shapes repeat")
        }
    }

    /// The line from its shape and values as the store gives it back (`StoredLineReader`):
    /// user, flow, name and step from the envelope (`b`: the batch), the rest as cut.
    private func rebuilt(_ parsed: ParsedLine, _ cuts: ArraySlice<LineShape.Cut>, _ env: Envelope,
                         _ b: UnsafeBufferPointer<UInt8>) -> (skeleton: [UInt8], line: [UInt8]) {
        var shape = LineShape()
        shape.shape(cuts: cuts, lineStart: parsed.start, lineEnd: parsed.start + parsed.count, in: b)
        var out: [UInt8] = [], k = 0, cut = 0
        let skeleton = shape.skeleton
        while k < skeleton.count {
            guard skeleton[k] == 0 else { out.append(skeleton[k]); k += 1; continue }
            let c = shape.cuts[cut]
            switch LineShape.Field(rawValue: skeleton[k + 1]) {
            case .user: out += env.userID.bytes(in: b)
            case .flow: out += env.flow.bytes(in: b)
            case .name: out += env.name.bytes(in: b)
            case .step: out += env.step.map { Array($0.bytes(in: b)) } ?? []
            default: out += b[c.start..<c.end]
            }
            cut += 1
            k += 2
        }
        return (skeleton, out)
    }

    /// Lines as the vendors' exports write them carry values of their own on every line
    /// (receive and send times, device, session and person ids, IP addresses, a user's
    /// traits) that no field reads: they are cut out with the event's values, so lines of
    /// the same event, version and flags share one shape, and each comes back byte for byte.
    func testValuesNoFieldReadsAreCutSoExportLinesShareTheirShape() throws {
        func posthog(_ i: Int) -> String {
            #"{"uuid":"0190-\#(i)","event":"Onboarding Started","properties":{"$os":"iOS","$app_version":"3.2.0","$lib":"posthog-ios","$device_id":"D-\#(i)","$session_id":"S-\#(i * 7)","$screen_height":844,"flow":"shieldai","$feature/paywall":true,"$set":{"email":"u\#(i)@example.com"}},"timestamp":"2026-10-01T10:00:\#(10 + i % 50).123Z","distinct_id":"u-\#(i)","elements_chain":"","created_at":"2026-10-01T10:01:\#(10 + i % 50).5Z","person_id":"P-\#(i)","team_id":1}"#
        }
        func segment(_ i: Int) -> String {
            #"{"anonymousId":"a-\#(i)","context":{"app":{"build":"42","name":"Shield","version":"3.2.0"},"device":{"id":"D-\#(i)","model":"iPhone14,2"},"ip":"10.0.0.\#(i)","library":{"name":"analytics-ios","version":"4.1.0"},"locale":"en-US","os":{"name":"iOS","version":"17.\#(i % 3)"},"timezone":"Europe/Berlin"},"event":"Onboarding Started","messageId":"m-\#(i)","originalTimestamp":"2026-10-01T10:00:\#(10 + i % 50).000Z","properties":{"flow":"shieldai","source":"ad-\#(i)"},"receivedAt":"2026-10-01T10:00:\#(10 + i % 50).900Z","sentAt":"2026-10-01T10:00:\#(10 + i % 50).500Z","timestamp":"2026-10-01T10:00:\#(10 + i % 50).334Z","type":"track","userId":"u-\#(i)","version":2}"#
        }
        func amplitude(_ i: Int) -> String {
            #"{"$insert_id":"i-\#(i)","amplitude_id":\#(1000 + i),"city":"Berlin","client_event_time":"2026-10-01 10:00:\#(10 + i % 50).100000","device_id":"D-\#(i)","event_id":\#(i),"event_properties":{"flow":"shieldai"},"event_time":"2026-10-01 10:00:\#(10 + i % 50).123000","event_type":"Onboarding Started","platform":"iOS","server_received_time":"2026-10-01 10:00:\#(10 + i % 50).900000","session_id":\#(1727776800000 + i),"user_id":"u-\#(i)","user_properties":{"[Experiment] paywall":"on","email":"u\#(i)@example.com"},"uuid":"0b1c-\#(i)","version_name":"3.2.0"}"#
        }
        func mixpanel(_ i: Int) -> String {
            #"{"event":"Onboarding Started","properties":{"$app_version_string":"3.2.0","$city":"Berlin","$device_id":"D-\#(i)","$insert_id":"i-\#(i)","$os":"iOS","distinct_id":"u-\#(i)","flow":"shieldai","mp_processing_time_ms":\#(1790817700000 + i),"time":\#(1790817710 + i)}}"#
        }
        for (name, line) in [("posthog", posthog), ("segment", segment), ("amplitude", amplitude), ("mixpanel", mixpanel)] {
            let lines = (1...60).map(line)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("vendorline-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(lines.joined(separator: "\n").utf8).write(to: file)
            let mapping = SourceMapping(try XCTUnwrap(SourcePresets.named(name)))
            var skeletons = Set<[UInt8]>(), count = 0
            let end = try LineParser.run(path: file.path, batchLines: 100, batchBytes: 1 << 16, source: mapping) { batch in
                batch.bytes.withUnsafeBufferPointer { b in
                    for parsed in batch.lines {
                        let line = Array(b[parsed.start..<(parsed.start + parsed.count)])
                        guard let env = parsed.envelope, let cuts = parsed.cuts(in: batch.cuts) else {
                            return XCTFail("\(name): \(String(decoding: line, as: UTF8.self)) \(parsed.quarantineReason(in: batch.rejections))")
                        }
                        let (skeleton, back) = rebuilt(parsed, cuts, env, b)
                        XCTAssertEqual(String(decoding: back, as: UTF8.self), String(decoding: line, as: UTF8.self), name)
                        skeletons.insert(skeleton)
                        count += 1
                    }
                }
                return true
            }
            XCTAssertNil(end.error)
            XCTAssertEqual(count, 60, name)
            XCTAssertEqual(skeletons.count, 1, "\(name): \(skeletons.map { String(decoding: $0, as: UTF8.self) })")
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
        // The escaped line is kept verbatim (its values' bytes are not the event's); the plain
        // one by its shape.
        XCTAssertEqual(lines[0].parsed.keys.shape, -1)
        XCTAssertNil(lines[0].parsed.vendorCuts)
        XCTAssertGreaterThanOrEqual(lines[2].parsed.keys.shape, 0)
        let first = try XCTUnwrap(lines[0].event)
        XCTAssertEqual(first.userID, "u\"1é")
        XCTAssertEqual(first.step, "a\\b")
        XCTAssertEqual(first.name, "onboarding.step_completed")
        XCTAssertEqual(first.properties["note"], .string("x\ny"))
        XCTAssertNil(lines[1].event)
        XCTAssertEqual(lines[1].rejection?.code, .missingField)
        XCTAssertEqual(lines[1].rejection?.text, "posthog: no uuid")
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
