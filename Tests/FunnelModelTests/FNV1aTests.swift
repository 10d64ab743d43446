import XCTest
@testable import FunnelModel

final class FNV1aTests: XCTestCase {
    /// The published FNV-1a 64 test vectors (Fowler, Noll, Vo): the hash stores persist.
    func testThePublishedVectors() {
        XCTAssertEqual(FNV1a.hash("".utf8), 0xcbf2_9ce4_8422_2325)
        XCTAssertEqual(FNV1a.hash("a".utf8), 0xaf63_dc4c_8601_ec8c)
        XCTAssertEqual(FNV1a.hash("foobar".utf8), 0x8594_4171_f739_67e8)
    }

    func testTheBufferAndTheSequenceAgree() {
        let bytes = Array("e-0001f00d-\u{1F600}".utf8)
        let fromBuffer = bytes.withUnsafeBufferPointer { FNV1a.hash($0) }
        XCTAssertEqual(fromBuffer, FNV1a.hash(bytes))
        let seeded = bytes.withUnsafeBufferPointer { FNV1a.hash($0, basis: 42) }
        XCTAssertEqual(seeded, FNV1a.hash(bytes, basis: 42))
        XCTAssertNotEqual(seeded, fromBuffer)
    }
}
