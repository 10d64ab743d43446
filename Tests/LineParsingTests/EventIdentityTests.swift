import XCTest
import LogFiles
@testable import LineParsing

final class EventIdentityTests: XCTestCase {
    /// The dedupe key is part of the store format: stored id indexes hold these values.
    func testTheIDHashIsTheStoreFormat() {
        func idHash(_ s: String) -> Int64 { Array(s.utf8).withUnsafeBufferPointer { EventIdentity.idHash($0) } }
        XCTAssertEqual(idHash("a"), Int64(bitPattern: 0xaf63_dc4c_8601_ec8c))
        XCTAssertEqual(idHash("e-1"), Int64(bitPattern: FNV1aReference.hash(Array("e-1".utf8))))
        XCTAssertEqual(idHash("0f6d2c1a9b3e4d57"), Int64(bitPattern: FNV1aReference.hash(Array("0f6d2c1a9b3e4d57".utf8))))
    }

    func testSameEventIsTheSameJSONNotTheSameBytes() {
        func same(_ a: String, _ b: String) -> Bool {
            Array(a.utf8).withUnsafeBufferPointer { x in Array(b.utf8).withUnsafeBufferPointer { y in EventIdentity.sameEvent(x, y) } }
        }
        let line = #"{"event_id":"e-1","event":"onboarding.started","user_id":"u-1","ts":"2026-10-01T10:00:00Z","flow":"glp1"}"#
        let respaced = #"{"event_id": "e-1", "user_id": "u-1", "event": "onboarding.started", "ts": "2026-10-01T10:00:00Z", "flow": "glp1"}"#
        let other = #"{"event_id":"e-1","event":"onboarding.started","user_id":"u-2","ts":"2026-10-01T10:00:00Z","flow":"glp1"}"#
        XCTAssertTrue(same(line, line))
        XCTAssertTrue(same(line, respaced))
        XCTAssertFalse(same(line, other))
        XCTAssertFalse(same("not json", "not json!"))
    }
}

/// FNV-1a 64 written out from its definition, independently of the code under test.
private enum FNV1aReference {
    static func hash(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 14_695_981_039_346_656_037
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 1_099_511_628_211
        }
        return h
    }
}
