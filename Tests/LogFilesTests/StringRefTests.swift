import XCTest
@testable import LogFiles

/// `StringRef` keeps its end and its place (line or scratch) in one word: each reads back as
/// set, whichever is changed after the other, and an envelope of them stays small.
final class StringRefTests: XCTestCase {
    func testEndAndPlaceReadBackAsSet() {
        for end: Int32 in [0, 1, 255, 65_536, Int32.max] {
            for inScratch in [false, true] {
                var r = StringRef(start: 3, end: end, inScratch: inScratch)
                XCTAssertEqual(r.start, 3)
                XCTAssertEqual(r.end, end)
                XCTAssertEqual(r.inScratch, inScratch)
                r.end = end / 2
                XCTAssertEqual(r.end, end / 2)
                XCTAssertEqual(r.inScratch, inScratch, "changing the end keeps the place")
                r.inScratch.toggle()
                XCTAssertEqual(r.end, end / 2, "changing the place keeps the end")
                XCTAssertEqual(r.inScratch, !inScratch)
            }
        }
    }

    func testRefsEqualByStartEndAndPlace() {
        XCTAssertEqual(StringRef(start: 1, end: 5, inScratch: true), StringRef(start: 1, end: 5, inScratch: true))
        XCTAssertNotEqual(StringRef(start: 1, end: 5, inScratch: true), StringRef(start: 1, end: 5, inScratch: false))
        XCTAssertNotEqual(StringRef(start: 1, end: 5, inScratch: false), StringRef(start: 1, end: 6, inScratch: false))
        XCTAssertEqual(StringRef(start: 2, end: 9, inScratch: false).count, 7)
    }

    /// An envelope is copied for every line: at most 128 bytes, it is copied inline.
    func testEnvelopeFitsAnInlineCopy() {
        XCTAssertEqual(MemoryLayout<StringRef>.size, 8)
        XCTAssertLessThanOrEqual(MemoryLayout<Envelope>.size, 128)
    }
}
