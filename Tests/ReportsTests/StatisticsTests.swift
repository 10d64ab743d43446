import XCTest
import FunnelModel
@testable import Reports

final class StatisticsTests: XCTestCase {
    func testPercentileMatchesNumpyLinear() throws {
        // numpy.percentile([1, 2, 3, 4, 10], [50, 75, 90, 95]) -> 3, 4, 7.6, 8.8
        let xs: [Double] = [1, 2, 3, 4, 10]
        XCTAssertEqual(try XCTUnwrap(Statistics.percentile(sorted: xs, 0.50)), 3, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(Statistics.percentile(sorted: xs, 0.75)), 4, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(Statistics.percentile(sorted: xs, 0.90)), 7.6, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(Statistics.percentile(sorted: xs, 0.95)), 8.8, accuracy: 1e-12)
        XCTAssertEqual(Statistics.percentile(sorted: [42], 0.9), 42)
        XCTAssertNil(Statistics.percentile(sorted: [], 0.5))
    }

    func testPercentileWithoutSortingIsTheSameValue() {
        var state: UInt64 = 42
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        for n in [1, 2, 3, 4, 5, 10, 11, 100, 1001] {
            for distinct in [2, 7, 1_000_000] {
                let values = (0..<n).map { _ in Double(next() % UInt64(distinct)) / 7 }
                for p in [0.0, 0.1, 0.5, 0.9, 0.95, 1.0] {
                    XCTAssertEqual(Statistics.percentile(unsorted: values, p), Statistics.percentile(sorted: values.sorted(), p), "n \(n) p \(p)")
                }
            }
        }
        XCTAssertNil(Statistics.percentile(unsorted: [], 0.5))
    }

    /// The radix sort of whole microseconds is `sorted()`, for few and many values, small and
    /// large ones (over the 11 bits of one pass, up to years), repeats and a negative value.
    func testSortedMicrosIsSorted() {
        var rng = SystemRandomNumberGenerator()
        for (count, top) in [(0, 1), (10, 1_000), (255, 1 << 40), (256, 2_047), (5_000, 2_048), (40_000, 86_400_000_000),
                             (40_000, 1 << 62), (3_000, 3)] as [(Int, Int64)] {
            let values = (0..<count).map { _ in Int64.random(in: 0...top, using: &rng) }
            XCTAssertEqual(Statistics.sorted(values), values.sorted(), "\(count) up to \(top)")
        }
        let negative = (0..<1_000).map { Int64($0 % 7) - 3 }
        XCTAssertEqual(Statistics.sorted(negative), negative.sorted())
    }

    func testWilsonInterval() throws {
        // 81 of 263: the textbook example, 0.2553 … 0.3662
        let ci = try XCTUnwrap(Statistics.wilson(successes: 81, trials: 263))
        XCTAssertEqual(ci.low, 0.2553, accuracy: 5e-4)
        XCTAssertEqual(ci.high, 0.3662, accuracy: 5e-4)
        let all = try XCTUnwrap(Statistics.wilson(successes: 10, trials: 10))
        XCTAssertEqual(all.high, 1, accuracy: 1e-12)
        XCTAssertEqual(all.low, 0.7225, accuracy: 5e-4)
        XCTAssertNil(Statistics.wilson(successes: 0, trials: 0))
    }

    func testHistogramCoversEveryValue() {
        let values: [Double] = [30, 95, 100, 290, 610, 1800]
        let bins = Statistics.histogram(values, maxBins: 12)
        XCTAssertEqual(bins.map(\.count).reduce(0, +), values.count)
        XCTAssertLessThanOrEqual(bins.count, 12)
        XCTAssertLessThanOrEqual(bins.first?.from ?? 1e9, 30)
        XCTAssertGreaterThan(bins.last?.to ?? 0, 1800)
    }

    func testDurationFormat() {
        XCTAssertEqual(DurationText.compact(45), "45s")
        XCTAssertEqual(DurationText.compact(372), "6m 12s")
        XCTAssertEqual(DurationText.compact(3900), "1h 05m")
        XCTAssertEqual(DurationText.compact(183_600), "2d 3h")
        XCTAssertEqual(DurationText.compact(nil), "—")
    }
}
