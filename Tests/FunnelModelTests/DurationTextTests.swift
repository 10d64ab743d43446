import XCTest
@testable import FunnelModel

final class DurationTextTests: XCTestCase {
    /// Each style at every boundary of the split: under a minute, under an hour, whole hours up
    /// to two days, under a day, days.
    func testBothStylesAtEachBoundary() {
        let cases: [(Double, String, String)] = [
            (0, "0s", "0 s"),
            (45, "45s", "45 s"),
            (59, "59s", "59 s"),
            (59.4, "59s", "59 s"),
            (59.5, "1m 00s", "1 min"),
            (60, "1m 00s", "1 min"),
            (184, "3m 04s", "3 min 4 s"),
            (372, "6m 12s", "6 min 12 s"),
            (3599, "59m 59s", "59 min 59 s"),
            (3600, "1h", "1 h"),
            (3660, "1h 01m", "1 h 1 min"),
            (3900, "1h 05m", "1 h 5 min"),
            (18_720, "5h 12m", "5 h 12 min"),
            (86_399, "23h 59m", "23 h 59 min"),
            (86_400, "24h", "24 h"),
            (90_000, "25h", "25 h"),
            (90_060, "1d 1h", "1 d 1 h"),
            (172_800, "48h", "48 h"),
            (172_860, "2d 0h", "2 d"),
            (176_400, "2d 1h", "2 d 1 h"),
            (183_600, "2d 3h", "2 d 3 h"),
            (-5, "-5s", "-5 s"),
        ]
        for (seconds, compact, spoken) in cases {
            XCTAssertEqual(DurationText.compact(seconds), compact, "compact \(seconds)")
            XCTAssertEqual(DurationText.spoken(seconds), spoken, "spoken \(seconds)")
        }
    }

    func testNoValueIsADash() {
        XCTAssertEqual(DurationText.compact(nil), "—")
        XCTAssertEqual(DurationText.compact(.infinity), "—")
        XCTAssertEqual(DurationText.compact(.nan), "—")
        XCTAssertEqual(DurationText.spoken(.nan), "—")
    }
}
