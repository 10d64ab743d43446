import XCTest
@testable import FunnelModel

/// The one JSON scanner, under the rules of an event line and of a definition file.
final class JSONScannerTests: XCTestCase {
    /// An event line's error: its byte offset and message.
    func lineError(_ text: String) -> JSONSyntaxError? {
        Array(text.utf8).withUnsafeBufferPointer { b in
            var sc = JSONScanner(b)
            do throws(JSONSyntaxError) {
                _ = try sc.parseValue()
                return nil
            } catch {
                return error
            }
        }
    }

    /// A definition file's error, placed by line and column.
    func documentError(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        do throws(JSONSyntaxError) {
            _ = try JSONScanner.parseDocument(bytes)
            return nil
        } catch {
            return error.located(in: bytes)
        }
    }

    func testJSONDocumentReadsWhatJSONSerializationReads() throws {
        let v = try JSONScanner.parseDocument(Array(#"{"a": [1, -2.5e3, true, null, "x\u00e9\n\ud83d\ude00"], "b": {}}"#.utf8))
        XCTAssertEqual(v, .object(["a": .array([.number("1"), .number("-2.5e3"), .bool(true), .null, .string("xé\n😀")]), "b": .object([:])]))
        XCTAssertThrowsError(try JSONScanner.parseDocument(Array("[1,]".utf8)))
        XCTAssertThrowsError(try JSONScanner.parseDocument(Array("{\"a\":1,\"a\":2}".utf8)))
        XCTAssertThrowsError(try JSONScanner.parseDocument(Array("01".utf8)))
    }

    func testOneFaultInEachRulesWords() {
        XCTAssertEqual(lineError(#"{"a" 1}"#), JSONSyntaxError(offset: 5, message: "expected ':'"))
        XCTAssertEqual(documentError(#"{"a" 1}"#), "line 1, column 6: expected ':' after key \"a\"")
        XCTAssertEqual(lineError("[1, 2"), JSONSyntaxError(offset: 5, message: "unexpected end of line, expected ',' or ']'"))
        XCTAssertEqual(documentError("[1, 2"), "line 1, column 6: unexpected end of input inside an array")
        XCTAssertEqual(lineError(#"["\q"]"#), JSONSyntaxError(offset: 3, message: "invalid escape"))
        XCTAssertEqual(documentError(#"["\q"]"#), "line 1, column 5: invalid escape")
        XCTAssertEqual(lineError("[tru]"), JSONSyntaxError(offset: 4, message: "invalid literal"))
        XCTAssertEqual(documentError("[tru]"), "line 1, column 2: unexpected character")
    }

    func testWhatOnlyADocumentRejects() {
        // A leading zero: an event line names it; a document's number ends at the zero.
        XCTAssertEqual(lineError("01"), JSONSyntaxError(offset: 1, message: "leading zero in number"))
        XCTAssertEqual(documentError("01"), "line 1, column 2: unexpected text after the JSON value")
        // A lone surrogate decodes to U+FFFD on an event line.
        XCTAssertNil(lineError(#"["\ud83d"]"#))
        XCTAssertEqual(documentError(#"["\ud83d"]"#), "line 1, column 9: unpaired surrogate")
        XCTAssertNil(lineError(#"{"a": 1, "a": 2}"#))
        XCTAssertEqual(documentError(#"{"a": 1, "a": 2}"#), "line 1, column 13: duplicate key \"a\"")
        XCTAssertEqual(documentError(String(repeating: "[", count: 200) + "1"), "line 1, column 201: nested too deeply")
        XCTAssertNil(lineError(String(repeating: "[", count: 200) + "1" + String(repeating: "]", count: 200)))
        XCTAssertEqual(lineError(String(repeating: "[", count: 513)), JSONSyntaxError(offset: 512, message: "nested deeper than 512 levels"))
    }

    /// Strings are scanned eight bytes at a time, then straight to the first quote, backslash
    /// or control byte of the word: wherever that byte falls (and with UTF-8 and bytes that
    /// borrow in the word's arithmetic before it), the string ends at its own quote, an escape
    /// is decoded, and a control byte is named at its offset.
    func testAStringEndsAtItsFirstSpecialByteWhereverItFalls() throws {
        let fillers: [[UInt8]] = [Array("a".utf8), Array("é".utf8), [0x21], [0x7F]]
        for filler in fillers {
            for length in 0..<24 {
                var body: [UInt8] = []
                while body.count < length { body += filler }
                let prefix = Array("{\"k\":".utf8)
                func scan(_ string: [UInt8]) -> Result<(Int, Int, Bool, [UInt8]), JSONSyntaxError> {
                    let bytes = prefix + string + Array("}".utf8)
                    return bytes.withUnsafeBufferPointer { b in
                        var sc = JSONScanner(b, at: prefix.count)
                        var out: [UInt8] = []
                        let scanned = withUnsafeMutablePointer(to: &out) { o -> Result<(start: Int, end: Int, escaped: Bool), JSONSyntaxError> in
                            do throws(JSONSyntaxError) {
                                return .success(try sc.scanString(decodeInto: o))
                            } catch {
                                return .failure(error)
                            }
                        }
                        return scanned.map { r in (r.start, r.end, r.escaped, r.escaped ? out : Array(b[r.start..<r.end])) }
                    }
                }
                let plain = try scan([0x22] + body + [0x22]).get()
                XCTAssertEqual(plain.0, prefix.count + 1)
                XCTAssertEqual(plain.1, prefix.count + 1 + body.count, "length \(length)")
                XCTAssertEqual(plain.3, body)
                for p in 0...body.count {
                    let escaped = try scan([0x22] + body[..<p] + Array("\\n".utf8) + body[p...] + [0x22]).get()
                    XCTAssertTrue(escaped.2)
                    XCTAssertEqual(escaped.3, Array(body[..<p]) + [0x0A] + Array(body[p...]), "escape at \(p) of \(length)")
                    let control = scan([0x22] + body[..<p] + [0x09] + body[p...] + [0x22])
                    XCTAssertThrowsError(try control.get()) { error in
                        XCTAssertEqual((error as? JSONSyntaxError)?.offset, prefix.count + 1 + p, "tab at \(p) of \(length)")
                    }
                }
            }
        }
    }

    func testInvalidUTF8InADocumentsString() throws {
        let bytes: [UInt8] = Array(#"{"a": ""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        XCTAssertThrowsError(try JSONScanner.parseDocument(bytes)) { error in
            XCTAssertEqual((error as? JSONSyntaxError)?.located(in: bytes), "line 1, column 11: invalid UTF-8 in a string")
        }
    }

    /// Lines count newlines; columns count characters, a UTF-8 byte order mark included.
    func testLineAndColumnFromTheOffset() {
        XCTAssertEqual(documentError("{\n  \"é\" 1}"), "line 2, column 7: expected ':' after key \"é\"")
        XCTAssertEqual(documentError("\u{FEFF}[1 2]"), "line 1, column 5: expected ',' or ']'")
        let error = JSONSyntaxError(offset: 4, message: "m")
        XCTAssertTrue(error.position(in: Array("ab\ncd".utf8)) == (2, 2))
    }
}
