import XCTest
import FunnelModel

/// `JSONValue.write(into: [UInt8])` writes the same text as `jsonText`.
final class JSONValueBytesTests: XCTestCase {
    func testBytesAreTheTextOfJSONText() {
        let values: [JSONValue] = [
            .string("plain"), .string("q\"b\\s/\n\r\t\u{08}\u{0C}\u{01}\u{1F}é😀"), .string(""),
            .object(["b": .number("1.5e3"), "a": .array([.null, .bool(true), .bool(false), .object([:])]), "é": .string("\u{7F}")]),
            .array([]),
        ]
        for v in values {
            var bytes: [UInt8] = []
            v.write(into: &bytes)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), v.jsonText)
        }
    }
}
