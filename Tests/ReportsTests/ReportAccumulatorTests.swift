import XCTest
import TestSupport
import FunnelModel
import Projections
@testable import Reports
import Journeys

/// The streaming report gives exactly the figures of the array-based reference, for every
/// breakdown, cohort and filter, also when counted in shares and added up.
final class ReportAccumulatorTests: XCTestCase {
    func testStreamingReportEqualsTheReference() throws {
        let population = Population(users: 400, seed: 5)
        let journeys = population.journeys()
        let builder = ReportBuilder(definition: miniFlow)
        var slots: [String: Int] = [:]
        for (i, step) in JourneyFacts.slots(miniFlow).enumerated() { slots[step] = i }
        let facts = journeys.map { JourneyFacts($0, definition: miniFlow, slots: slots).binary() }
        let flag = ReportQuery.Dimension.flag("trackingStyleQuestion")
        let dims: [[ReportQuery.Dimension]] = [[], [.cohort], [.lane], [.appVersion], [.platform], [.day], [.week], [flag],
                                               [.appVersion, flag], [.cohort, .lane], [.week, .cohort], [.platform, .day]]
        var compared = 0
        for dimensions in dims {
            for cohort in [nil] + miniFlow.cohorts.map(Optional.some) {
                for idle in [86_400.0, 600] {
                    let query = ReportQuery(cohort: cohort, asOf: population.asOf, idleSeconds: idle, by: dimensions.first,
                                            alsoBy: dimensions.dropFirst().first)
                    let by: String? = dimensions.isEmpty ? nil : dimensions.map(\.description).joined(separator: ",")
                    let got = builder.report(journeys, query: query)
                    let want = builder.referenceReport(journeys, query: query)
                    XCTAssertEqual(got, want, "by \(by ?? "-") cohort \(cohort?.id ?? "-")")
                    XCTAssertEqual(try got.json(), try want.json())
                    // The same from the stored facts (through their bytes), a platform breakdown too.
                    var fromFacts = ReportAccumulator(builder: builder, query: query)
                    XCTAssertTrue(fromFacts.acceptsFacts)
                    guard fromFacts.acceptsFacts else { compared += 1; continue }
                    for f in facts { fromFacts.add(try f.withUnsafeBytes { try JourneyFacts(binary: $0) }) }
                    XCTAssertEqual(fromFacts.report(), want, "facts: by \(by ?? "-") cohort \(cohort?.id ?? "-")")
                    // Counted in shares and added up in share order: the same report.
                    for cuts in [[1], [137], [90, 250, 399]] {
                        var shares: [ReportAccumulator] = []
                        for range in zip([0] + cuts, cuts + [facts.count]) {
                            var share = ReportAccumulator(builder: builder, query: query)
                            for f in facts[range.0..<range.1] { share.add(try f.withUnsafeBytes { try JourneyFacts(binary: $0) }) }
                            shares.append(share)
                        }
                        var merged = shares.removeFirst()
                        for share in shares { merged.merge(share) }
                        XCTAssertEqual(merged.report(), want, "shares \(cuts): by \(by ?? "-") cohort \(cohort?.id ?? "-")")
                    }
                    compared += 1
                }
            }
        }
        XCTAssertGreaterThan(compared, 10)
        // The figures are real: some users in every state.
        let all = builder.report(journeys, query: ReportQuery(asOf: population.asOf))
        XCTAssertGreaterThan(all.users.completed, 0)
        XCTAssertGreaterThan(all.users.abandoned, 0)
        XCTAssertGreaterThan(all.steps.map(\.dropped).reduce(0, +), 0)
        XCTAssertGreaterThan(all.adjacentPairs?.count ?? 0, 2)
    }
}
