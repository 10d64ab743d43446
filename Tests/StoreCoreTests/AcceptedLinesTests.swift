import XCTest
@testable import StoreCore

/// An input's accepted lines: runs of consecutive lines with consecutive seqs, each line's
/// seq found by a search among them or read from one array (`byLine`), with the same answers.
final class AcceptedLinesTests: XCTestCase {
    /// Lines 3–5, 7, 8 and 20 accepted (6 a duplicate, 9–19 not events), then 21–22 with a
    /// gap in the seqs (another input's events in between).
    func accepted() -> AcceptedLines {
        var a = AcceptedLines()
        for (line, seq) in [(3, 100), (4, 101), (5, 102), (7, 103), (8, 104), (20, 105), (21, 200), (22, 201)] {
            a.append(line: line, seq: Int64(seq))
        }
        return a
    }

    func testEachLineHasItsSeqOrNone() {
        let a = accepted()
        let expected: [Int: Int64] = [3: 100, 4: 101, 5: 102, 7: 103, 8: 104, 20: 105, 21: 200, 22: 201]
        for line in 0...25 {
            XCTAssertEqual(a.seq(ofLine: line), expected[line], "line \(line)")
            XCTAssertEqual(a.byLine.seq(ofLine: line), expected[line], "line \(line), by line")
            XCTAssertEqual(AcceptedLines.ByLine(a, denseLimit: 5).seq(ofLine: line), expected[line], "line \(line), searched")
        }
    }

    func testNoAcceptedLineHasNoSeq() {
        let a = AcceptedLines()
        for line in [0, 1, 1_000] {
            XCTAssertNil(a.seq(ofLine: line))
            XCTAssertNil(a.byLine.seq(ofLine: line))
        }
    }
}
