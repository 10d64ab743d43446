import XCTest
import FunnelModel
@testable import LogFiles

final class EventDecoderTests: XCTestCase {
    func rejection(_ line: String) -> Rejection? {
        if case .failure(let r) = decode(line) { return r }
        return nil
    }

    func testDecodesEveryEnvelopeField() throws {
        let line = #"{"event_id":"e\u0031","event":"sign_in_succeeded","user_id":"u-\u00e9","ts":"2026-10-03T14:22:01.123+02:00","flow":"glp1","step":"signIn","properties":{"provider":"apple","n":1.10,"list":[true,null]},"context":{"app_version":"3.3.0","platform":"ios","flags":{"trackingStyleQuestion":true},"locale":"de"},"extra":1}"#
        let event = try decode(line).get()
        XCTAssertEqual(event.id, "e1")
        XCTAssertEqual(event.rawName, "sign_in_succeeded")
        XCTAssertEqual(event.name, "onboarding.sign_in_succeeded")
        XCTAssertEqual(event.userID, "u-é")
        XCTAssertEqual(event.time.micros, 1_791_030_121_123_000)
        XCTAssertEqual(event.time.offsetSeconds, 7200)
        XCTAssertEqual(event.flow, "glp1")
        XCTAssertEqual(event.step, "signIn")
        XCTAssertEqual(event.properties["provider"], .string("apple"))
        XCTAssertEqual(event.properties["n"], .number("1.10"))
        XCTAssertEqual(event.properties["list"], .array([.bool(true), .null]))
        XCTAssertEqual(event.context.appVersion, "3.3.0")
        XCTAssertEqual(event.context.platform, "ios")
        XCTAssertEqual(event.context.flags, ["trackingStyleQuestion": .bool(true)])
        XCTAssertEqual(event.context.other, ["locale": .string("de")])
    }

    /// Through a cache, events share what repeats (strings, properties, contexts) and still
    /// decode exactly as one at a time: over 16,384 distinct properties (the cache starts
    /// over), repeated and new ones interleaved, with and without the id.
    func testCachedDecodingGivesTheSameEvents() throws {
        var decoder = EventDecoder()
        var cache = EventCache()
        for n in 0..<20_000 {
            let props = n % 3 == 0 ? #"{"provider":"apple"}"# : #"{"age":\#(n),"goal":"lose"}"#
            let line = #"{"event_id":"e-\#(n)","event":"onboarding.step_completed","user_id":"u-\#(n % 700)","ts":"2026-10-03T14:22:01Z","flow":"glp1","step":"s\#(n % 4)","properties":\#(props),"context":{"app_version":"3.\#(n % 5).0","flags":{"x":true}}}"#
            let alone = try decode(line).get()
            var text = line
            let (shared, bare) = try text.withUTF8 { b -> (Event, Event) in
                let env = try decoder.envelope(b).get()
                return (decoder.event(from: env, in: b, cache: &cache), decoder.event(from: env, in: b, cache: &cache, id: false))
            }
            XCTAssertEqual(shared, alone)
            XCTAssertEqual(bare.id, "")
            var withID = bare
            withID.id = alone.id
            XCTAssertEqual(withID, alone)
            if n == 19_999 { XCTAssertEqual(shared.properties["age"], .number("19999")) }
        }
    }

    func testOptionalFieldsMayBeAbsentAndLastDuplicateKeyWins() throws {
        let e = try decode(#" {"event_id":"a","event":"x","user_id":"u","ts":"2026-01-01T00:00:00Z","flow":"f","flow":"g"} "#).get()
        XCTAssertNil(e.step)
        XCTAssertEqual(e.flow, "g")
        XCTAssertEqual(e.properties, [:])
        XCTAssertNil(e.known)
    }

    func testStrictJSON() {
        let base = #""event_id":"a","event":"x","user_id":"u","ts":"2026-01-01T00:00:00Z","flow":"f""#
        let bad: [(String, Int, String)] = [
            ("{\(base),}", 82, "expected a string"),
            ("{\(base),\"p\":NaN}", 86, "expected a value"),
            ("{\(base),\"p\":-}", 87, "invalid number"),
            ("{\(base),\"p\":1.}", 88, "expected a digit after the decimal point"),
            ("{\(base),\"p\":\"\\x\"}", 88, "invalid escape"),
            ("{\(base),\"p\":\"a\tb\"}", 88, "control character in string"),
            ("{\(base),\"p\":[1,]}", 89, "expected a value"),
            ("{\(base),\"p\":tru}", 89, "invalid literal"),
            ("{\(base)}}", 82, "unexpected text after the object"),
        ]
        for (line, column, detail) in bad {
            XCTAssertEqual(rejection(line), .notJSON(column: column, detail: detail), line)
        }
        // Valid edge cases.
        for extra in [#""p":-0.5e+10"#, #""p":"\ud83d\ude00 \/ \" \\ \b\f\n\r\t""#, #""p":{"a":[[],{}]}"#, #""p":"\u0000""#] {
            XCTAssertNil(rejection("{\(base),\(extra)}"), extra)
        }
        XCTAssertEqual(try? decode("{\(base),\"properties\":{\"s\":\"\\ud83d\\ude00\"}}").get().properties["s"], .string("😀"))
    }

    /// A lone surrogate escape (a string cut through an emoji, as JavaScript writes it) is
    /// accepted, as Python, Node and the event schema accept it: it decodes to U+FFFD, and
    /// the escape after a lone high surrogate is read on its own.
    func testLoneSurrogatesDecodeToTheReplacementCharacter() throws {
        let base = #""event_id":"a","event":"x","ts":"2026-01-01T00:00:00Z","flow":"f""#
        let cases: [(String, String)] = [
            (#"ab\ud83d"#, "ab\u{FFFD}"),
            (#"\ude00x"#, "\u{FFFD}x"),
            (#"\ud83d\u0041"#, "\u{FFFD}A"),
            (#"\ud83d\ud83d\ude00"#, "\u{FFFD}😀"),
            (#"\ud83d\n"#, "\u{FFFD}\n"),
        ]
        for (escaped, decoded) in cases {
            let event = try decode("{\(base),\"user_id\":\"\(escaped)\",\"properties\":{\"s\":\"\(escaped)\"}}").get()
            XCTAssertEqual(event.userID, decoded, escaped)
            XCTAssertEqual(event.properties["s"], .string(decoded), escaped)
        }
        let bad = "{\(base),\"user_id\":\"\\ud83d\\uZZZZ\"}"
        guard case .notJSON(_, let detail)? = rejection(bad) else { return XCTFail(bad) }
        XCTAssertEqual(detail, "invalid \\u escape")
    }

    /// Strings are scanned eight bytes at a time: a quote, backslash or control character at
    /// any position of those eight is still found (an escape decoded, a control character
    /// rejected at its own column), and multi-byte UTF-8 passes.
    func testStringsAreScannedAlikeAtEveryAlignment() throws {
        let base = #""event_id":"a","event":"x","user_id":"u","ts":"2026-01-01T00:00:00Z","flow":"f""#
        let prefix = "{\(base),\"step\":\""
        for at in 0..<20 {
            let head = String(repeating: "a", count: at)
            let tail = "é" + String(repeating: "b", count: 19 - at)
            XCTAssertEqual(try decode(prefix + head + "\\\"" + tail + "\"}").get().step, head + "\"" + tail, "escape at \(at)")
            XCTAssertEqual(try decode(prefix + head + "\\\\" + tail + "\"}").get().step, head + "\\" + tail, "backslash at \(at)")
            XCTAssertEqual(try decode(prefix + head + tail + "\"}").get().step, head + tail, "plain at \(at)")
            for control in ["\u{01}", "\u{1F}", "\t"] {
                XCTAssertEqual(rejection(prefix + head + control + tail + "\"}"),
                               .notJSON(column: prefix.utf8.count + at + 1, detail: "control character in string"), "control at \(at)")
            }
        }
        // The bytes 0x20, 0x7F and above 0x7F are ordinary.
        XCTAssertEqual(try decode(prefix + " \u{7F}ü漢😀 and 1234567 more\"}").get().step, " \u{7F}ü漢😀 and 1234567 more")
    }

    func testFieldRules() {
        XCTAssertEqual(rejection(#"{"event":"x","user_id":"u","ts":"2026-01-01T00:00:00Z","flow":"f"}"#), .missingField("event_id"))
        XCTAssertEqual(rejection(#"{"event_id":"","event":"x","user_id":"u","ts":"2026-01-01T00:00:00Z","flow":"f"}"#), .emptyField("event_id"))
        XCTAssertEqual(rejection(#"{"event_id":"a","event":"x","user_id":"","ts":"2026-01-01T00:00:00Z","flow":"f"}"#), .emptyField("user_id"))
        XCTAssertEqual(rejection(#"{"event_id":"a","event":"x","user_id":"u","ts":"2026-01-01T00:00:00Z","flow":"f","step":null}"#), .notAString(field: "step"))
        XCTAssertEqual(rejection(#"{"event_id":"a","event":"x","user_id":"u","ts":"2026-01-01","flow":"f"}"#), .badTimestamp("\"2026-01-01\""))
        XCTAssertEqual(rejection(#"{"event_id":"a","event":"x","user_id":"u","ts":"2026-01-01T00:00:00Z","flow":"f","context":{"platform":1}}"#),
                       .notAString(field: "context.platform"))
        XCTAssertEqual(rejection("[]"), .notObject(found: "array"))
        XCTAssertEqual(rejection("   "), .notJSON(column: 4, detail: "empty line"))
        XCTAssertEqual(decode([0x7B, 0x22, 0xFF]).failureValue, .invalidUTF8(offset: 2))
    }

    func testRejectionCodesAreStable() {
        XCTAssertEqual(Rejection.Code.allCases.map(\.rawValue), ["invalid_utf8", "not_json", "not_object", "missing_field",
            "not_a_string", "not_an_object", "bad_timestamp", "empty_field", "line_too_long"])
        XCTAssertEqual(Rejection.lineTooLong(length: 1_048_577).text, "line over 1 MiB (1048577 bytes): its first 1048576 bytes are kept")
    }

    func testUTF8Validation() {
        func check(_ bytes: [UInt8]) -> Int? { bytes.withUnsafeBufferPointer { UTF8Check.firstInvalid($0) } }
        XCTAssertNil(check(Array("plain ascii text, long enough for the word loop".utf8)))
        XCTAssertNil(check(Array("é中😀".utf8)))
        XCTAssertEqual(check([0x61, 0xC0, 0xAF]), 1)          // overlong
        XCTAssertEqual(check([0x61, 0x62, 0xED, 0xA0, 0x80]), 2) // surrogate
        XCTAssertEqual(check([0xF4, 0x90, 0x80, 0x80]), 0)    // above U+10FFFF
        XCTAssertEqual(check([0xE2, 0x82]), 0)                // truncated sequence
        XCTAssertEqual(check(Array("0123456789abcdef".utf8) + [0xFF]), 16)
        // Long lines are read 32 bytes, then 8, then one at a time: a fault at every place in
        // and after each block is found where it is, and a valid sequence there passes.
        for length in [31, 32, 33, 40, 64, 70] {
            for at in 0..<length {
                var bytes = [UInt8](repeating: 0x61, count: length)
                bytes[at] = 0xFF
                XCTAssertEqual(check(bytes), at, "0xFF at \(at) of \(length)")
                if at + 1 < length {
                    bytes[at] = 0xC3
                    bytes[at + 1] = 0xA9
                    XCTAssertNil(check(bytes), "é at \(at) of \(length)")
                }
            }
        }
    }

    /// Every line of every bad sample, with the exact reason it is rejected (nil = accepted).
    func testBadSamplesGiveExactReasons() throws {
        let expected: [String: [Int: Rejection?]] = [
            "not-json.ndjson": [1: nil, 2: .notJSON(column: 57, detail: "expected a string"),
                                3: .notJSON(column: 2, detail: "expected a string"),
                                4: .notJSON(column: 72, detail: "unexpected end of line, expected ',' or '}'"),
                                5: .notJSON(column: 28, detail: "expected a value"),
                                6: .notJSON(column: 29, detail: "leading zero in number"),
                                7: .notJSON(column: 1, detail: "empty line"),
                                8: .notJSON(column: 25, detail: "unexpected text after the object"), 9: nil],
            "not-object.ndjson": [1: nil, 2: .notObject(found: "array"), 3: .notObject(found: "string"),
                                  4: .notObject(found: "number"), 5: .notObject(found: "null"), 6: nil],
            "missing-field.ndjson": [1: nil, 2: .missingField("event_id"), 3: .missingField("event"), 4: .missingField("user_id"),
                                     5: .missingField("ts"), 6: .missingField("flow")],
            "wrong-type.ndjson": [1: nil, 2: .notAString(field: "event_id"), 3: .notAString(field: "user_id"),
                                  4: .notAString(field: "event"), 5: .notAString(field: "flow"), 6: .notAString(field: "step"),
                                  7: .notAnObject(field: "properties"), 8: .notAnObject(field: "context"),
                                  9: .notAString(field: "context.app_version"), 10: .notAnObject(field: "context.flags"),
                                  11: .notAString(field: "ts")],
            "bad-timestamp.ndjson": [1: nil, 2: .badTimestamp("\"2026-10-03T14:22:01\""), 3: .badTimestamp("\"2026-10-03\""),
                                     4: .badTimestamp("\"2026-02-30T10:00:00Z\""), 5: .badTimestamp("\"2026-10-03T25:00:00Z\""),
                                     6: .badTimestamp("\"yesterday\""), 7: .badTimestamp("\"2025-02-29T10:00:00Z\""),
                                     8: .badTimestamp("\"2026-10-03T14:22:01.Z\""), 9: .badTimestamp("\"2026-10-03T14:22:01+0200\""),
                                     10: nil],
            "empty-id.ndjson": [1: nil, 2: .emptyField("event_id"), 3: .emptyField("user_id"), 4: nil],
            "invalid-utf8.ndjson": [1: nil, 2: .invalidUTF8(offset: 78), 3: .invalidUTF8(offset: 78), 4: .invalidUTF8(offset: 78),
                                    5: .invalidUTF8(offset: 78), 6: nil],
            "long-line.ndjson.gz": [1: nil, 2: .lineTooLong(length: 1_048_843), 3: nil],
        ]
        for (file, lines) in expected {
            let (read, error, _) = readLines(sampleData.appendingPathComponent("bad/\(file)").path)
            XCTAssertNil(error, file)
            XCTAssertEqual(read.count, lines.count, file)
            for (info, bytes) in read {
                let got: Rejection?
                if info.isOversized {
                    got = .lineTooLong(length: info.length)
                } else if case .failure(let r) = decode(bytes) { got = r } else { got = nil }
                XCTAssertEqual(got, lines[info.number] ?? .missingField("?"), "\(file):\(info.number)")
            }
        }
    }
}

extension Result {
    var failureValue: Failure? { if case .failure(let f) = self { return f } else { return nil } }
}
