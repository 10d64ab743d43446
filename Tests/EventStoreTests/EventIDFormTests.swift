import XCTest
import FunnelModel
@testable import EventStore

/// A stored body keeps an event id of hex digits as the bytes they spell and a UUID as its
/// 16 bytes; every id, kept so or as its text, comes back byte for byte.
final class EventIDFormTests: XCTestCase {
    /// The id as kept and read back, with the kept bytes.
    func roundTrip(_ id: String) -> (form: EventIDForm, kept: Int, back: String?) {
        let bytes = Array(id.utf8)
        var room = [UInt8](repeating: 0, count: Varint.maxBytes * 2 + bytes.count)
        let kept = bytes.withUnsafeBufferPointer { b in
            room.withUnsafeMutableBufferPointer { r -> Int in
                guard let base = r.baseAddress else { return 0 }
                var at = base
                EventIDForm.write(b, to: &at)
                return at - base
            }
        }
        var out: [UInt8] = []
        var i = 0
        let ok = Array(room[..<kept]).withUnsafeBytes { EventIDForm.read($0, at: &i, into: &out) }
        return (bytes.withUnsafeBufferPointer { EventIDForm.of($0) }, kept, ok && i == kept ? String(decoding: out, as: UTF8.self) : nil)
    }

    func testHexIdsAndUUIDsAreKeptAsBytes() {
        let cases: [(String, EventIDForm, Int)] = [
            ("8c07a7a2dc7d8d9f", .lowerHex, 2 + 8),
            ("8C07A7A2DC7D8D9F", .upperHex, 2 + 8),
            ("0123456789", .lowerHex, 2 + 5),
            ("f47ac10b-58cc-4372-a567-0e02b2c3d479", .lowerUUID, 1 + 16),
            ("F47AC10B-58CC-4372-A567-0E02B2C3D479", .upperUUID, 1 + 16),
            ("12345678-1234-1234-1234-123456789012", .lowerUUID, 1 + 16),
        ]
        for (id, form, kept) in cases {
            let r = roundTrip(id)
            XCTAssertEqual(r.form, form, id)
            XCTAssertEqual(r.kept, kept, id)
            XCTAssertEqual(r.back, id)
        }
    }

    /// Mixed case, an odd number of digits, other bytes, dashes elsewhere: kept as text.
    func testOtherIdsAreKeptAsTheirText() {
        for id in ["8c07A7a2", "abc", "e-1", "", "f47ac10b-58cc-4372-a567-0E02b2c3d479", "f47ac10b58cc-4372-a567-0e02b2c3d4791",
                   "f47ac10b-58cc-4372-a567-0e02b2c3d47g", "évènement", String(repeating: "ab", count: 128)] {
            let r = roundTrip(id)
            XCTAssertEqual(r.form, .text, id)
            XCTAssertEqual(r.back, id)
        }
    }

    func testGeneratedIdsComeBackExactly() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefABCDEF-xz".utf8)
        for _ in 0..<5_000 {
            var id = (0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng) ?? 0x30 }
            if Bool.random(using: &rng), id.count >= 36 { for k in [8, 13, 18, 23] { id[k] = 0x2D } }
            let text = String(decoding: id, as: UTF8.self)
            XCTAssertEqual(roundTrip(text).back, text)
        }
    }

    /// A body that ends inside an id, or names no form, does not read.
    func testShortOrUnknownBodiesDoNotRead() {
        for body: [UInt8] in [[], [1], [1, 4, 0xAB], [3, 0, 1], [9], [0, 5, 0x61]] {
            var i = 0, out: [UInt8] = []
            XCTAssertFalse(body.withUnsafeBytes { EventIDForm.read($0, at: &i, into: &out) }, "\(body)")
        }
    }
}
