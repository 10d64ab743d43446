import XCTest
import GRDB
@testable import EventStore

/// Texts bound together from one temporary copy read back as the strings they were: short
/// and long, empty, non-ASCII, and nil as NULL, each at its own parameter.
final class RawStatementTests: XCTestCase {
    func testTextsBoundTogetherReadBackAsGiven() throws {
        let queue = try DatabaseQueue()
        let long = String(repeating: "onboarding.step_viewed/", count: 40)
        let texts: [String?] = ["glp1", "", nil, "Zürich — 東京", long, "u-025367"]
        try queue.write { db in
            let s = try RawStatement(db, "SELECT ?2, ?3, ?4, ?5, ?6, ?7, typeof(?4), ?1")
            s.int(1, 42)
            let row: [String?] = try s.withTexts(texts, from: 2) {
                XCTAssertTrue(try s.step("reading the bound texts"))
                return (0..<6).map { i in s.isNull(Int32(i)) ? nil : String(decoding: s.bytes(Int32(i)), as: UTF8.self) }
                    + [String(decoding: s.bytes(6), as: UTF8.self), String(s.int64(7))]
            }
            s.reset()
            XCTAssertEqual(row, texts + ["null", "42"])
        }
    }
}
