import Foundation
import FunnelModel
import LogFiles
import Simulator
import XCTest
@testable import LogSources

/// The cutter against `SourceMapping.map`, its reference: for every line, the same verdict,
/// and on success a native line that decodes to the mapped event (time offset included).
final class SourceCutterTests: XCTestCase {
    /// What ingest makes of a line: the rejection's text, or the event its native line
    /// decodes to (a native line can still fail there: its text names the native field).
    private func verdict(_ native: [UInt8]?, _ rejection: SourceRejection?) -> Verdict {
        if let rejection { return .rejected(rejection.description) }
        switch EventDecoder.decode(bytes: native ?? []) {
        case .success(let e): return .event(e)
        case .failure(let r): return .rejected("native line: \(r)")
        }
    }

    private enum Verdict {
        case event(Event)
        case rejected(String)
    }

    private func assertSame(_ cutter: inout SourceCutter, _ line: [UInt8], _ what: String,
                            file: StaticString = #filePath, lineNumber: UInt = #line) {
        let mapped = cutter.mapping.map(bytes: line)
        let want = verdict(try? mapped.get().nativeLine, mapped.failureValue)
        let rejection = line.withUnsafeBufferPointer { cutter.map($0) }
        let got = verdict(rejection == nil ? cutter.line : nil, rejection)
        let text = String(decoding: line, as: UTF8.self)
        assertVendorFields(cutter, line, "\(what): \(text)", file: file, lineNumber: lineNumber)
        switch (want, got) {
        case (.event(let w), .event(let g)):
            XCTAssertEqual(g, w, "\(what): \(text)", file: file, line: lineNumber)
            XCTAssertEqual(g.time.offsetSeconds, w.time.offsetSeconds, "\(what): \(text)", file: file, line: lineNumber)
        case (.rejected(let w), .rejected(let g)):
            XCTAssertEqual(g, w, "\(what): \(text)", file: file, line: lineNumber)
        default:
            XCTFail("\(what): mapping \(want), cutter \(got) for \(text)", file: file, line: lineNumber)
        }
    }

    /// Where the vendor's line holds the values its native line copies, the bytes are the
    /// native line's (a stored vendor line takes them from the row's atoms); the time and
    /// properties are values of the line. Set exactly when the native fields are.
    private func assertVendorFields(_ cutter: SourceCutter, _ line: [UInt8], _ what: String,
                                    file: StaticString, lineNumber: UInt) {
        XCTAssertEqual(cutter.vendorFields == nil, cutter.fields == nil, what, file: file, line: lineNumber)
        guard let v = cutter.vendorFields, let f = cutter.fields else { return }
        func same(_ vendor: Range<Int>?, _ native: Range<Int>?, _ field: String) {
            guard let vendor else { return }
            XCTAssertEqual(native.map { Array(cutter.line[$0]) }, Array(line[vendor]), "\(field) of \(what)", file: file, line: lineNumber)
        }
        same(v.eventID, f.eventID, "event id")
        same(v.userID, f.userID, "user")
        same(v.flow, f.flow, "flow")
        same(v.step, f.step, "step")
        same(v.name, f.name, "name")
        // The time and the other values lie in the line, apart from each other and the
        // values above.
        let all = ([v.eventID, v.userID, v.time] + [v.flow, v.step, v.name].compactMap { $0 } + cutter.otherValues)
            .sorted { $0.lowerBound < $1.lowerBound }
        for (a, b) in zip(all, all.dropFirst()) {
            XCTAssertLessThanOrEqual(a.upperBound, b.lowerBound, "values overlap in \(what)", file: file, line: lineNumber)
        }
        XCTAssertLessThanOrEqual(all.last?.upperBound ?? 0, line.count, what, file: file, line: lineNumber)
    }

    /// Every sample line written as each vendor takes the one scan, and decodes to the event
    /// the mapping gives.
    func testEverySampleLineTakesTheScanAndMapsAsTheMappingDoes() throws {
        let native = try lines(in: sampleData.appendingPathComponent("glp1")) + lines(in: sampleData.appendingPathComponent("shieldai"))
        let events = try native.map { try EventDecoder.decode(bytes: $0).get() }
        XCTAssertGreaterThan(events.count, 18_000)
        for name in presetNames {
            let writer = SourceWriter(preset(name))
            var cutter = SourceCutter(SourceMapping(preset(name)))
            var scanned = 0
            for event in events {
                let line = try writer.line(for: event)
                if line.withUnsafeBufferPointer({ cutter.cutLine($0) }) { scanned += 1 }
                assertSame(&cutter, line, name)
            }
            XCTAssertEqual(scanned, events.count, "\(name): every plain line takes the scan")
        }
    }

    /// Lines longer than the room a cutter starts with (many properties and flags, long
    /// values) take the scan and map as the mapping does, and so does a short line after them.
    func testLongLinesTakeTheScanAndMapAsTheMappingDoes() throws {
        let native = try lines(in: sampleData.appendingPathComponent("glp1"))
        let short = try EventDecoder.decode(bytes: native[0]).get()
        var long = short
        for i in 0..<120 { long.properties["answer\(i)"] = .string(String(repeating: "ab", count: i)) }
        for i in 0..<40 { long.context.flags["flag\(i)"] = .bool(i % 2 == 0) }
        for name in presetNames {
            let writer = SourceWriter(preset(name))
            var cutter = SourceCutter(SourceMapping(preset(name)))
            for event in [short, long, short, long] {
                let line = try writer.line(for: event)
                XCTAssertTrue(line.withUnsafeBufferPointer { cutter.cutLine($0) }, "\(name): \(line.count) bytes take the scan")
                assertSame(&cutter, line, name)
            }
            XCTAssertGreaterThan(try writer.line(for: long).count, 10_000, name)
        }
    }

    /// The vendor sample exports as they are on disk (identify and page lines among them).
    func testTheVendorSamplesMapAsTheMappingDoes() throws {
        for name in presetNames {
            let file = try lines(in: sampleData.appendingPathComponent("sources").appendingPathComponent(name))
            XCTAssertGreaterThan(file.count, 1_000, name)
            var cutter = SourceCutter(SourceMapping(preset(name), defaultFlow: "shieldai"))
            for line in file { assertSame(&cutter, line, name) }
        }
    }

    /// Lines off the common path: each gets the mapping's verdict, whichever way it is read.
    func testNearMissesGetTheMappingsVerdict() throws {
        let cases: [String: [String]] = [
            "posthog": [
                #"{"uuid":"e1","event":"Step Completed","distinct_id":"u1","timestamp":"2026-10-01T10:00:00+02:00","properties":{"flow":"glp1","step":"height","$os":"iOS","$feature/a":true,"$feature/":1,"$feature/b":{"x":[1,2]},"n":null}}"#,
                #"{"uuid":"e1","event":"Step Completed","distinct_id":"u1","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"glp1","flow":"other"}}"#,
                #"{"uuid":"e1","uuid":"e2","event":"Step Completed","distinct_id":"u1","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"glp1"}}"#,
                #"{"u\u0075id":"e1","uuid":"e2","event":"x","distinct_id":"u1","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"glp1"}}"#,
                #"{"uuid":"e1","event":"x","distinct_id":"u1","timestamp":"2026-10-01T10:00:00Z","properties":{"fl\u006fw":"glp1","flow":"g"}}"#,
                #"{"uuid":"e\"1","event":"Step\u0020Completed","distinct_id":"u\\1","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"gl\u0070"}}"#,
                #"  { "uuid" : "e1" , "event" : "Step Completed" , "distinct_id" : "u1" , "timestamp" : "2026-10-01T10:00:00Z" , "properties" : { "flow" : "glp1" , "a" : { "b" : [ 1 , 2.5e3 ] } } }  "#,
                #"{"uuid":"e1","event":"$screen","distinct_id":"u1","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"glp1","$screen_name":"weight","step":"height"}}"#,
                #"{"uuid":"e1","event":"$screen","distinct_id":"u1","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"glp1","$screen_name":7}}"#,
                #"{"uuid":"e1","event":"$pageview","distinct_id":"u1","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"glp1"}}"#,
                #"{"uuid":"e1","event":"Étape","distinct_id":"u1","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"glp1","$feature/\#u{301}x":true}}"#,
                #"{"uuid":"e1","event":"Step Completed","distinct_id":"u1","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"glp1"}} x"#,
                #"{"uuid":"e1","event":"Step Completed","distinct_id":"u1","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"glp1",}}"#,
                #"{"uuid":"e1","event":"Step Completed","distinct_id":"u1","timestamp":"2026-10-01","properties":{"flow":"glp1"}}"#,
                #"{"uuid":"e1","event":"Step Completed","distinct_id":"u1","timestamp":"2026-02-30T10:00:00Z","properties":{"flow":"glp1"}}"#,
                #"{"uuid":"","event":"Step Completed","distinct_id":"u1","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"glp1"}}"#,
                #"{"uuid":"e1","event":"Step Completed","distinct_id":null,"timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"glp1"}}"#,
                #"{"uuid":"e1","event":"Step Completed","distinct_id":"u1","timestamp":"2026-10-01T10:00:00Z","properties":[]}"#,
                #"{"uuid":"e1","event":"Step Completed","distinct_id":"u1","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":1}}"#,
                #"{"uuid":"e1","event":"Step Completed","distinct_id":"u1","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"glp1","$app_version":null,"$os":"iOS"}}"#,
                #"{"uuid":"e1","event":"Step Completed","distinct_id":"u1","timestamp":"2026-10-01T10:00:00Z"}"#,
                #"[1]"#, #""#, #"{"#,
            ],
            "segment": [
                #"{"type":"screen","messageId":"m1","userId":"u1","timestamp":"2026-10-01T10:00:00.5-04:00","name":"weight","properties":{"flow":"glp1"},"context":{"os":{"name":"iOS"},"app":{"version":"1.0"},"flags":{}}}"#,
                #"{"type":"track","messageId":"m1","anonymousId":"a1","userId":null,"timestamp":"2026-10-01T10:00:00Z","event":"Signed Up","properties":{"flow":"glp1"},"context":{"flags":{ "x" : true },"os":"iOS"}}"#,
                #"{"type":"identify","messageId":"m1","userId":"u1","timestamp":"2026-10-01T10:00:00Z","traits":{"a":1},"properties":{"flow":"glp1"}}"#,
                #"{"type":"track","messageId":"m1","userId":"u1","timestamp":"2026-10-01T10:00:00Z","event":"Signed Up","properties":{"flow":"glp1"},"context":{"app":{"version":"1","version":"2"}}}"#,
                #"{"type":"track","messageId":"m1","userId":"u1","timestamp":"2026-10-01T10:00:00Z","event":"Signed Up","properties":{"flow":"glp1"},"context":{"flags":[1]}}"#,
                #"{"type":"tr\u0061ck","messageId":"m1","userId":"u1","timestamp":"2026-10-01T10:00:00Z","event":"Signed Up","properties":{"flow":"glp1"}}"#,
                #"{"messageId":"m1","userId":"u1","timestamp":"2026-10-01T10:00:00Z","event":"Signed Up","properties":{"flow":"glp1"}}"#,
                #"{"type":"screen","messageId":"m1","userId":"u1","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"glp1","step":"height"}}"#,
            ],
            "amplitude": [
                #"{"$insert_id":null,"uuid":"x1","user_id":null,"device_id":"d1","event_time":"2026-10-01 08:00:00.123456","event_type":"Signed Up","event_properties":{"flow":"glp1"},"user_properties":{"[Experiment] a":"on","[Experiment] ":"x","other":1},"platform":"iOS","version_name":"1.2"}"#,
                #"{"$insert_id":"i1","user_id":"u1","event_time":"2026-10-01T08:00:00","event_type":"Signed Up","event_properties":{"flow":"glp1"}}"#,
                #"{"$insert_id":"i1","user_id":"u1","event_time":"2026-10-01 08:00:00.12x","event_type":"Signed Up","event_properties":{"flow":"glp1"}}"#,
                #"{"$insert_id":"i1","user_id":"u1","event_time":"2026-10-01 08:00:00","event_type":"Signed Up","event_properties":{"flow":"glp1"},"user_properties":"none"}"#,
            ],
            "mixpanel": [
                #"{"event":"Signed Up","properties":{"$insert_id":"i1","distinct_id":"u1","time":1790841600123,"flow":"glp1","flags":{"a":true},"$os":"iOS"}}"#,
                #"{"event":"Signed Up","properties":{"$insert_id":"i1","distinct_id":"u1","time":1790841600.5,"flow":"glp1"}}"#,
                #"{"event":"Signed Up","properties":{"$insert_id":"i1","distinct_id":"u1","time":"1790841600","flow":"glp1"}}"#,
                #"{"event":"Signed Up","properties":{"$insert_id":"i1","distinct_id":"u1","time":-5,"flow":"glp1"}}"#,
                #"{"event":"Signed Up","properties":{"$insert_id":"i1","distinct_id":"u1","time":1e9,"flow":"glp1"}}"#,
            ],
        ]
        for (name, texts) in cases {
            for flow in [nil, "glp1"] {
                var cutter = SourceCutter(SourceMapping(preset(name), defaultFlow: flow))
                for text in texts { assertSame(&cutter, Array(text.utf8), name) }
                assertSame(&cutter, Array(#"{"a":"\#u{FF}"}"#.utf8) + [0xFF], name)
            }
        }
    }

    /// Generated near-misses: sample lines with one byte dropped, doubled or changed, at
    /// every kind of place, from a fixed seed.
    func testMutatedLinesGetTheMappingsVerdict() throws {
        let native = try lines(in: sampleData.appendingPathComponent("glp1"))
        let events = try native.prefix(400).map { try EventDecoder.decode(bytes: $0).get() }
        var rng = SplitMix64(seed: 43)
        let bytes: [UInt8] = Array(#" "\{}[]:,0a.-eEnul\"#.utf8)
        for name in presetNames {
            let writer = SourceWriter(preset(name))
            var cutter = SourceCutter(SourceMapping(preset(name), defaultFlow: "glp1"))
            var scanned = 0, rejected = 0
            for event in events {
                var line = try writer.line(for: event)
                let at = Int(rng.next() % UInt64(line.count))
                switch rng.next() % 3 {
                case 0: line.remove(at: at)
                case 1: line.insert(line[at], at: at)
                default: line[at] = bytes[Int(rng.next() % UInt64(bytes.count))]
                }
                if line.withUnsafeBufferPointer({ cutter.cutLine($0) }) { scanned += 1 }
                if case .failure = cutter.mapping.map(bytes: line) { rejected += 1 }
                assertSame(&cutter, line, name)
            }
            // Both kinds are met: lines still read in one scan, and lines rejected.
            XCTAssertGreaterThan(scanned, 20, name)
            XCTAssertGreaterThan(rejected, 20, name)
        }
    }
}
