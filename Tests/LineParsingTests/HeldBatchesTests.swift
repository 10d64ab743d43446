import XCTest
import Foundation
import LogFiles
@testable import LineParsing
import TestSupport

/// Batches held while a first member is checked: handed back in order once it passes,
/// dropped when it fails; the limit says when to wait for the verdict.
final class HeldBatchesTests: XCTestCase {
    /// The check a stream hands over for a single stored member of about 1.2 MB (streamed),
    /// damaged in its CRC when `damaged`.
    func check(damaged: Bool) throws -> DeferredMemberCheck {
        let path = Scratch.directory("held-batches").appendingPathComponent("one.gz").path
        try GzipWriter(path: path, level: 0).writeMember(String(repeating: #"{"event_id":"e","user_id":"u"}"# + "\n", count: 40_000))
        if damaged {
            var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            bytes[bytes.count - 6] ^= 0x01
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        let d = try DeferringStream(path: path)
        _ = try d.stream.drain()
        return try XCTUnwrap(d.checks.first)
    }

    func batch(_ tag: UInt8, bytes: Int) -> LineBatch {
        var b = LineBatch()
        b.bytes = [UInt8](repeating: tag, count: bytes)
        return b
    }

    func testBatchesComeBackInOrderWhenTheMemberPassesAndNotWhenItFails() throws {
        for damaged in [false, true] {
            var held = HeldBatches(limit: 250)
            XCTAssertFalse(held.isWaiting)
            XCTAssertEqual(held.settle()?.count, 0)
            held.start(try check(damaged: damaged))
            XCTAssertTrue(held.isWaiting)
            XCTAssertFalse(held.hold(batch(1, bytes: 100)))
            XCTAssertFalse(held.hold(batch(2, bytes: 100)))
            XCTAssertTrue(held.hold(batch(3, bytes: 100)))
            let ready = held.settle()
            XCTAssertFalse(held.isWaiting)
            if damaged {
                XCTAssertNil(ready)
            } else {
                XCTAssertEqual(ready?.map { $0.bytes.first }, [1, 2, 3])
            }
            XCTAssertEqual(held.settle()?.count, 0)
        }
    }
}
