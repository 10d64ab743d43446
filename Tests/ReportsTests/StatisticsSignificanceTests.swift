import XCTest
@testable import Reports

/// Reference values from scipy 1.17 (`chi2_contingency(..., correction=False)`,
/// `false_discovery_control`).
final class StatisticsSignificanceTests: XCTestCase {
    func testTwoProportionPValueIsTheUncorrectedChiSquare() throws {
        let cases: [(Int, Int, Int, Int, Double)] = [
            (40, 60, 500, 1000, 0.012131505457733754),
            (31, 45, 25, 30, 0.1588192898529167),
            (10, 30, 12, 30, 0.5920969758853978),
            (11797, 17616, 13198, 21605, 2.0065519278087895e-33),
        ]
        for (x1, n1, x2, n2, expected) in cases {
            let p = try XCTUnwrap(Statistics.twoProportionPValue(x1, of: n1, against: x2, of: n2))
            XCTAssertEqual(p / expected, 1, accuracy: 1e-9, "\(x1)/\(n1) vs \(x2)/\(n2)")
        }
        // Too few users on either side: no test.
        XCTAssertNil(Statistics.twoProportionPValue(10, of: 29, against: 500, of: 1000))
        XCTAssertNil(Statistics.twoProportionPValue(10, of: 300, against: 5, of: 29))
        // No variance: nothing to tell apart.
        XCTAssertEqual(Statistics.twoProportionPValue(0, of: 40, against: 0, of: 50), 1)
        XCTAssertEqual(Statistics.twoProportionPValue(40, of: 40, against: 50, of: 50), 1)
    }

    func testBenjaminiHochbergSkipsUntestedSegments() throws {
        let adjusted = Statistics.benjaminiHochberg([0.01, nil, 0.04, 0.03, 0.2])
        let expected: [Double?] = [0.04, nil, 0.05333333333333334, 0.05333333333333334, 0.2]
        XCTAssertEqual(adjusted.count, expected.count)
        for (a, e) in zip(adjusted, expected) {
            if let e { XCTAssertEqual(try XCTUnwrap(a), e, accuracy: 1e-12) } else { XCTAssertNil(a) }
        }
        XCTAssertEqual(Statistics.benjaminiHochberg([]), [])
        XCTAssertEqual(Statistics.benjaminiHochberg([0.9, 0.8]), [0.9, 0.9])
    }

    /// Newcombe (1998), "Interval estimation for the difference between independent
    /// proportions", Table II, method 10 (the hybrid score interval), to its four decimals.
    func testDifferenceIntervalIsNewcombesHybridScore() throws {
        let cases: [(Int, Int, Int, Int, Double, Double)] = [
            (56, 70, 48, 80, 0.0524, 0.3339),
            (9, 10, 3, 10, 0.1705, 0.8090),
            (6, 7, 2, 7, 0.0582, 0.8062),
            (5, 56, 0, 29, -0.0381, 0.1926),
            (0, 10, 0, 20, -0.1611, 0.2775),
            (0, 10, 0, 10, -0.2775, 0.2775),
            (10, 10, 0, 20, 0.6791, 1.0000),
        ]
        for (x1, n1, x2, n2, low, high) in cases {
            let ci = try XCTUnwrap(Statistics.differenceInterval(x1, of: n1, against: x2, of: n2))
            XCTAssertEqual(ci.low, low, accuracy: 0.00005, "\(x1)/\(n1) − \(x2)/\(n2)")
            XCTAssertEqual(ci.high, high, accuracy: 0.00005, "\(x1)/\(n1) − \(x2)/\(n2)")
        }
        XCTAssertNil(Statistics.differenceInterval(0, of: 0, against: 3, of: 10))
    }
}
