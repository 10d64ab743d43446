import Foundation
import FunnelModel
import LogFiles
import XCTest
@testable import LogSources

final class SourceMappingTests: XCTestCase {
    /// The differential test: every line of the GLP-1 sample (flags, every event kind, eight
    /// UTC offsets) and the ShieldAI sample, written as each vendor, maps back to exactly the
    /// event EventDecoder gives for the native line: id, name, user, time with its offset
    /// (UTC for vendors that write none), flow, step, properties and context.
    func testEveryNativeLineMapsBackFromEveryPreset() throws {
        let native = try lines(in: sampleData.appendingPathComponent("glp1")) + lines(in: sampleData.appendingPathComponent("shieldai"))
        XCTAssertGreaterThan(native.count, 18_000)
        let events = try native.map { try EventDecoder.decode(bytes: $0).get() }
        XCTAssertTrue(events.contains { !$0.context.flags.isEmpty })
        XCTAssertTrue(events.contains { $0.time.offsetSeconds != 0 })
        for name in presetNames {
            let source = preset(name)
            let writer = SourceWriter(source)
            let mapping = SourceMapping(source)
            let keepsOffset = source.timeFormat == .iso8601
            var failures = 0
            for event in events where failures < 5 {
                let line = try writer.line(for: event)
                switch mapping.map(bytes: line) {
                case .failure(let r):
                    failures += 1
                    XCTFail("\(name): \(r) for \(String(decoding: line, as: UTF8.self))")
                case .success(let mapped):
                    var want = event
                    if !keepsOffset { want.time.offsetSeconds = 0 }
                    if mapped.event != want || mapped.event.time.offsetSeconds != want.time.offsetSeconds {
                        failures += 1
                        XCTFail("\(name): \(String(decoding: line, as: UTF8.self))\nmapped \(mapped.event)\nnative \(want)")
                    }
                }
            }
        }
    }

    /// funnel's own envelope as a source reads the native sample lines as EventDecoder does.
    func testTheNativeEnvelopeAsASourceReadsNativeLinesAsEventDecoderDoes() throws {
        let native = try lines(in: sampleData.appendingPathComponent("shieldai")) + lines(in: sampleData.appendingPathComponent("edge"))
        let mapping = SourceMapping(.native)
        for line in native {
            let want = try EventDecoder.decode(bytes: line).get()
            let got = try mapping.map(bytes: line).get().event
            XCTAssertEqual(got, want)
            XCTAssertEqual(got.time.offsetSeconds, want.time.offsetSeconds)
        }
    }

    func testTheTimeAsWrittenIsKept() throws {
        let event = Event(id: "e1", name: "onboarding.started", userID: "u1",
                          time: try XCTUnwrap(Timestamp.parse("2026-10-01T10:00:00.123+02:00")), flow: "glp1")
        let written = ["posthog": "2026-10-01T10:00:00.123+02:00", "amplitude": "2026-10-01 08:00:00.123000",
                       "mixpanel": "1790841600123"]
        for (name, text) in written {
            let mapped = try SourceMapping(preset(name)).map(bytes: try SourceWriter(preset(name)).line(for: event)).get()
            XCTAssertEqual(mapped.timeText, text, name)
            XCTAssertEqual(mapped.event.time.micros, event.time.micros, name)
            XCTAssertEqual(mapped.vendorName, "Onboarding Started", name)
        }
    }

    // MARK: vendor lines as the vendors write them (extra fields, nulls, other spellings)

    func time(_ text: String) throws -> Timestamp { try XCTUnwrap(Timestamp.parse(text)) }

    func mapped(_ name: String, _ line: String, flow: String? = nil) throws -> MappedEvent {
        try SourceMapping(preset(name), defaultFlow: flow).map(bytes: Array(line.utf8)).get()
    }

    func testPostHogEventWithFeatureFlagsAndLibraryProperties() throws {
        let line = #"{"uuid":"0192a0b4-7c1e","event":"Step Completed","distinct_id":"u-42","timestamp":"2026-10-01T10:00:00.123+02:00","#
            + #""properties":{"$lib":"posthog-ios","$os":"iOS","$app_version":"3.2.0","$feature/newPaywall":true,"#
            + #""$feature/trackingStyleQuestion":"control","flow":"glp1","step":"height","heightCm":"180"},"elements_chain":""}"#
        let m = try mapped("posthog", line)
        XCTAssertEqual(m.event, Event(id: "0192a0b4-7c1e", name: "onboarding.step_completed", userID: "u-42",
                                      time: try time("2026-10-01T08:00:00.123Z"), flow: "glp1", step: "height",
                                      properties: ["$lib": .string("posthog-ios"), "heightCm": .string("180")],
                                      context: EventContext(appVersion: "3.2.0", platform: "iOS",
                                                            flags: ["newPaywall": .bool(true), "trackingStyleQuestion": .string("control")])))
        XCTAssertEqual(m.event.time.offsetSeconds, 7200)
    }

    func testPostHogScreenIsAStepViewAndOtherEventsKeepTheirNames() throws {
        let screen = try mapped("posthog", #"{"uuid":"s1","event":"$screen","distinct_id":"u","timestamp":"2026-10-01T10:00:00Z","properties":{"$screen_name":"height","flow":"glp1"}}"#)
        XCTAssertEqual(screen.event.name, "onboarding.step_viewed")
        XCTAssertEqual(screen.event.step, "height")
        XCTAssertEqual(screen.event.properties, [:])
        XCTAssertEqual(screen.vendorName, "$screen")
        for vendor in ["$pageview", "$autocapture", "Paywall Dismissed", "onboarding.debug_tapped"] {
            let m = try mapped("posthog", #"{"uuid":"p1","event":"\#(vendor)","distinct_id":"u","timestamp":"2026-10-01T10:00:00Z","properties":{"$current_url":"x"}}"#, flow: "glp1")
            XCTAssertEqual(m.event.rawName, vendor, "kept as the vendor named it: an unplanned event")
            XCTAssertNil(m.event.known)
            XCTAssertEqual(m.event.properties, ["$current_url": .string("x")])
        }
        // Native names pass through, prefixed or not.
        let native = try mapped("posthog", #"{"uuid":"n1","event":"sign_in_succeeded","distinct_id":"u","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"glp1"}}"#)
        XCTAssertEqual(native.event.rawName, "sign_in_succeeded")
        XCTAssertEqual(native.event.known, .signInSucceeded)
    }

    func testSegmentTrackScreenAndIdentify() throws {
        for name in ["segment", "rudderstack"] {
            let track = try mapped(name, #"{"type":"track","event":"Onboarding Started","messageId":"ajs-1","userId":null,"anonymousId":"anon-7","#
                                   + #""timestamp":"2026-10-01T10:00:00.5Z","receivedAt":"2026-10-01T10:00:02Z","#
                                   + #""context":{"app":{"version":"3.3.0","build":"301"},"os":{"name":"iOS","version":"18.0"},"library":{"name":"analytics-swift"},"flags":{"newPaywall":false}},"#
                                   + #""properties":{"flow":"glp1","step":"welcome","source":"push"},"integrations":{}}"#)
            XCTAssertEqual(track.event, Event(id: "ajs-1", name: "onboarding.started", userID: "anon-7", time: try time("2026-10-01T10:00:00.500Z"),
                                              flow: "glp1", step: "welcome", properties: ["source": .string("push")],
                                              context: EventContext(appVersion: "3.3.0", platform: "iOS", flags: ["newPaywall": .bool(false)])), name)
            let screen = try mapped(name, #"{"type":"screen","name":"height","messageId":"m2","userId":"u-1","timestamp":"2026-10-01T10:00:01Z","properties":{"flow":"glp1"}}"#)
            XCTAssertEqual(screen.event.name, "onboarding.step_viewed", name)
            XCTAssertEqual(screen.event.step, "height", name)
            let identify = #"{"type":"identify","messageId":"m3","userId":"u-1","timestamp":"2026-10-01T10:00:01Z","traits":{"email":"a@b.c"}}"#
            let kept = try mapped(name, identify, flow: "glp1")
            XCTAssertEqual(kept.event.rawName, "identify", name)
            XCTAssertEqual(kept.event.flow, "glp1", name)
            XCTAssertEqual(SourceMapping(preset(name)).map(bytes: Array(identify.utf8)),
                           .failure(SourceRejection(.missingField, "\(name): no properties.flow and no default flow")), name)
            let page = try mapped(name, #"{"type":"page","name":"Pricing","messageId":"m4","userId":"u-1","timestamp":"2026-10-01T10:00:01Z","properties":{"flow":"glp1"}}"#)
            XCTAssertEqual(page.event.rawName, "page", name)
        }
    }

    func testAmplitudeAnonymousUserExperimentsAndUTCTime() throws {
        let line = #"{"$insert_id":"ins-1","uuid":"5f0c","user_id":null,"device_id":"dev-9","event_time":"2026-10-01 10:00:00.123456","#
            + #""event_type":"Permission Result","event_properties":{"flow":"shieldai","step":"notifications","granted":true},"#
            + #""user_properties":{"[Experiment] newPaywall":"treatment","plan":"pro"},"version_name":"3.2.1","platform":"iOS","os_name":"ios"}"#
        let m = try mapped("amplitude", line)
        XCTAssertEqual(m.event, Event(id: "ins-1", name: "onboarding.permission_result", userID: "dev-9",
                                      time: try time("2026-10-01T10:00:00.123456Z"), flow: "shieldai", step: "notifications",
                                      properties: ["granted": .bool(true)],
                                      context: EventContext(appVersion: "3.2.1", platform: "iOS", flags: ["newPaywall": .string("treatment")])))
        XCTAssertEqual(m.event.time.offsetSeconds, 0)
        let noInsertID = try mapped("amplitude", #"{"uuid":"5f0c","user_id":"u-1","event_time":"2026-10-01 10:00:00","event_type":"Button Tapped","event_properties":{"flow":"shieldai"}}"#)
        XCTAssertEqual(noInsertID.event.id, "5f0c", "the second path when the first is absent")
        XCTAssertEqual(noInsertID.event.rawName, "Button Tapped")
        XCTAssertEqual(noInsertID.event.time, try time("2026-10-01T10:00:00Z"))
    }

    func testMixpanelSecondsAndMilliseconds() throws {
        let seconds = try mapped("mixpanel", #"{"event":"Sign In Failed","properties":{"time":1790841600,"distinct_id":"u-5","$insert_id":"mp-1","$os":"iOS","#
                                 + #""$app_version_string":"3.2.0","flow":"shieldai","step":"auth","provider":"apple","reason":"cancelled","mp_lib":"swift","flags":{"x":true}}}"#)
        XCTAssertEqual(seconds.event, Event(id: "mp-1", name: "onboarding.sign_in_failed", userID: "u-5", time: try time("2026-10-01T08:00:00Z"),
                                            flow: "shieldai", step: "auth",
                                            properties: ["provider": .string("apple"), "reason": .string("cancelled"), "mp_lib": .string("swift")],
                                            context: EventContext(appVersion: "3.2.0", platform: "iOS", flags: ["x": .bool(true)])))
        let ms = try mapped("mixpanel", #"{"event":"Signed Up","properties":{"time":1790841600123,"distinct_id":"u-5","$insert_id":"mp-2","flow":"shieldai"}}"#)
        XCTAssertEqual(ms.event.time, try time("2026-10-01T08:00:00.123Z"))
        let fraction = try mapped("mixpanel", #"{"event":"Signed Up","properties":{"time":1790841600.25,"distinct_id":"u-5","$insert_id":"mp-3","flow":"shieldai"}}"#)
        XCTAssertEqual(fraction.event.time, try time("2026-10-01T08:00:00.250Z"))
        // Milliseconds with a digit lost read as seconds past the year 9999: not a time.
        let lost = SourceMapping(preset("mixpanel")).map(bytes: Array(#"{"event":"Signed Up","properties":{"time":790875014529,"distinct_id":"u-5","$insert_id":"mp-4","flow":"shieldai"}}"#.utf8))
        XCTAssertEqual(lost.failureValue?.code, .badTimestamp)
        XCTAssertEqual(lost.failureValue?.text, "mixpanel: properties.time 790875014529 is not a time (expected Unix seconds or milliseconds)")
        XCTAssertEqual(try mapped("mixpanel", #"{"event":"x","properties":{"time":253402300799,"distinct_id":"u","$insert_id":"i","flow":"f"}}"#).event.time,
                       try time("9999-12-31T23:59:59Z"))
        // Sixteen digits of milliseconds: past the year 9999, not an overflow.
        XCTAssertEqual(SourceMapping(preset("mixpanel")).map(bytes: Array(#"{"event":"x","properties":{"time":9999999999999999,"distinct_id":"u","$insert_id":"i","flow":"f"}}"#.utf8)).failureValue?.code,
                       .badTimestamp)
    }

    // MARK: rejections

    /// A line of each preset with one required value missing, of the wrong type, empty or not
    /// a time: the native rejection's code, the vendor's field named, the value's byte offset.
    func testEachRequiredFieldMissingOrMalformedIsNamed() throws {
        let event = Event(id: "e1", name: "onboarding.step_completed", userID: "u1",
                          time: try time("2026-10-01T10:00:00.123+02:00"), flow: "glp1", step: "height",
                          properties: ["heightCm": .string("180")], context: EventContext(appVersion: "3.2.0", platform: "ios"))
        let first: [String: [String: String]] = [
            "posthog": ["event_id": "uuid", "user_id": "distinct_id", "ts": "timestamp", "event": "event", "flow": "properties.flow"],
            "segment": ["event_id": "messageId", "user_id": "userId", "ts": "timestamp", "event": "event", "flow": "properties.flow"],
            "rudderstack": ["event_id": "messageId", "user_id": "userId", "ts": "timestamp", "event": "event", "flow": "properties.flow"],
            "amplitude": ["event_id": "$insert_id", "user_id": "user_id", "ts": "event_time", "event": "event_type", "flow": "event_properties.flow"],
            "mixpanel": ["event_id": "properties.$insert_id", "user_id": "properties.distinct_id", "ts": "properties.time", "event": "event", "flow": "properties.flow"],
        ]
        let missing: [String: [String: String]] = [
            "posthog": ["event_id": "no uuid", "user_id": "no distinct_id", "ts": "no timestamp", "event": "no event",
                        "flow": "no properties.flow and no default flow"],
            "segment": ["event_id": "no messageId", "user_id": "no userId or anonymousId", "ts": "no timestamp", "event": "no event",
                        "flow": "no properties.flow and no default flow"],
            "amplitude": ["event_id": "no $insert_id or uuid", "user_id": "no user_id or device_id", "ts": "no event_time",
                          "event": "no event_type", "flow": "no event_properties.flow and no default flow"],
            "mixpanel": ["event_id": "no properties.$insert_id", "user_id": "no properties.distinct_id", "ts": "no properties.time",
                         "event": "no event", "flow": "no properties.flow and no default flow"],
        ]
        for name in presetNames {
            let source = preset(name)
            let good = tree(try SourceWriter(source).line(for: event))
            let mapping = SourceMapping(source)
            func reject(_ line: JSONValue) -> SourceRejection? {
                if case .failure(let r) = mapping.map(bytes: line.bytes) { return r }
                return nil
            }
            XCTAssertNotNil(try? mapping.map(bytes: good.bytes).get(), name)
            for (field, path) in try XCTUnwrap(first[name]) {
                let want = missing[name == "rudderstack" ? "segment" : name]?[field].map { "\(name): \($0)" }
                XCTAssertEqual(reject(good.setting(path, nil)), SourceRejection(.missingField, want ?? ""), "\(name) \(field)")
                XCTAssertEqual(reject(good.setting(path, .null))?.code, .missingField, "\(name) \(field): null is absent")
                // A boolean where a string (or a time) is: the byte offset points at it.
                let wrong = good.setting(path, .bool(true))
                let r = try XCTUnwrap(reject(wrong), "\(name) \(field)")
                if field == "ts" {
                    XCTAssertEqual(r.code, .badTimestamp, name)
                    XCTAssertTrue(r.text.hasPrefix("\(name): \(path) true is not a time ("), r.text)
                } else {
                    XCTAssertEqual(r.code, .notAString, "\(name) \(field)")
                    XCTAssertEqual(r.text, "\(name): \(path) must be a string", "\(name) \(field)")
                }
                let bytes = wrong.bytes
                let at = try XCTUnwrap(r.offset, "\(name) \(field)")
                XCTAssertEqual(bytes[at], UInt8(ascii: "t"), "\(name) \(field)")
                let key = Array("\(JSONValue.quoted(String(path.split(separator: ".").last ?? ""))):".utf8)
                XCTAssertEqual(Array(bytes[(at - key.count)..<at]), key, "\(name) \(field): the offset is the value's")
            }
            let id = try XCTUnwrap(first[name]?["event_id"]), user = try XCTUnwrap(first[name]?["user_id"]), ts = try XCTUnwrap(first[name]?["ts"])
            XCTAssertEqual(reject(good.setting(id, .string("")))?.text, "\(name): empty \(id)")
            XCTAssertEqual(reject(good.setting(id, .string("")))?.code, .emptyField)
            XCTAssertEqual(reject(good.setting(user, .string("")))?.text, "\(name): empty \(user)")
            let badTime = try XCTUnwrap(reject(good.setting(ts, .string("x"))))
            XCTAssertEqual(badTime.code, .badTimestamp)
            XCTAssertTrue(badTime.text.hasPrefix("\(name): \(ts) \"x\" is not a time"), badTime.text)
            let propertiesPath = try XCTUnwrap(source.paths(.properties).first?.description)
            let noObject = SourceMapping(source, defaultFlow: "glp1").map(bytes: good.setting(propertiesPath, .array([])).bytes)
            if name != "mixpanel" {   // Mixpanel keeps every value in properties: the id is missing first
                XCTAssertEqual(noObject.failureValue?.code, .notAnObject, name)
                XCTAssertEqual(noObject.failureValue?.text, "\(name): \(propertiesPath) must be an object")
            }
            XCTAssertEqual(mapping.map(bytes: Array(#"{"a":"#.utf8)).failureValue?.code, .notJSON)
            XCTAssertEqual(mapping.map(bytes: Array(#"{"a":"#.utf8)).failureValue?.offset, 5)
            XCTAssertEqual(mapping.map(bytes: Array("[1]".utf8)).failureValue, SourceRejection(.notObject, "\(name): not an object: the line is a JSON array"))
            XCTAssertEqual(mapping.map(bytes: Array(#"{"a":"\#u{FF}"}"#.utf8) + [0xFF]).failureValue?.code, .invalidUTF8)
        }
        // Segment's type: a track line without it cannot be told from any other.
        let segment = tree(try SourceWriter(preset("segment")).line(for: event))
        XCTAssertEqual(SourceMapping(preset("segment")).map(bytes: segment.setting("type", nil).bytes).failureValue,
                       SourceRejection(.missingField, "segment: no type"))
    }

    /// A vendor line and a native line with the same fault get the same code.
    func testAVendorLineAndANativeLineWithTheSameFaultGetTheSameCode() throws {
        let native: [(String, String)] = [
            (#"{"event":"x","user_id":"u","ts":"2026-10-01T10:00:00Z","flow":"f"}"#, #"{"type":"track","event":"x","userId":"u","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"f"}}"#),
            (#"{"event_id":"e","event":"x","user_id":"u","ts":"yesterday","flow":"f"}"#, #"{"type":"track","messageId":"e","event":"x","userId":"u","timestamp":"yesterday","properties":{"flow":"f"}}"#),
            (#"{"event_id":"","event":"x","user_id":"u","ts":"2026-10-01T10:00:00Z","flow":"f"}"#, #"{"type":"track","messageId":"","event":"x","userId":"u","timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"f"}}"#),
            (#"{"event_id":"e","event":"x","user_id":7,"ts":"2026-10-01T10:00:00Z","flow":"f"}"#, #"{"type":"track","messageId":"e","event":"x","userId":7,"timestamp":"2026-10-01T10:00:00Z","properties":{"flow":"f"}}"#),
            ("[1]", "[1]"),
        ]
        for (nativeLine, vendorLine) in native {
            let want = try XCTUnwrap(EventDecoder.decode(line: nativeLine).failureValue?.code, nativeLine)
            XCTAssertEqual(SourceMapping(preset("segment")).map(bytes: Array(vendorLine.utf8)).failureValue?.code, want, vendorLine)
        }
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let f) = self { return f }
        return nil
    }
}
