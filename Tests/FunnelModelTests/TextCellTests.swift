import XCTest
@testable import FunnelModel

final class TextCellTests: XCTestCase {
    func testPadFillsToTheWidthAndLeavesLongerTextWhole() {
        XCTAssertEqual(TextCell.pad("ab", 5), "ab   ")
        XCTAssertEqual(TextCell.pad("ab", 5, right: true), "   ab")
        XCTAssertEqual(TextCell.pad("abcde", 5), "abcde")
        XCTAssertEqual(TextCell.pad("abcdef", 3, right: true), "abcdef")
        XCTAssertEqual(TextCell.pad("é✓", 4), "é✓  ")
    }

    func testCutKeepsTheStartOrTheEndWithAnEllipsis() {
        XCTAssertEqual(TextCell.cut("onboarding", 10), "onboarding")
        XCTAssertEqual(TextCell.cut("onboarding", 6), "onboa…")
        XCTAssertEqual(TextCell.cutLeft("flows/glp1.json", 15), "flows/glp1.json")
        XCTAssertEqual(TextCell.cutLeft("flows/glp1.json", 9), "…lp1.json")
        XCTAssertEqual(TextCell.cut("abc", 1), "…")
    }
}
