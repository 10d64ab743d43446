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
