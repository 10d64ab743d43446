import XCTest
import TestSupport
import Foundation
import FunnelModel
import Flows
@testable import Projections
@testable import Journeys

/// Shares read at once are kept when they saw one state of the store; otherwise every share
/// is started again and everything is read in one pass.
final class ProjectionStoreSharesTests: XCTestCase {
    func testSharesAgreeOnlyWhenTheySawOneState() throws {
        let store = try ingest([repositoryRoot.appendingPathComponent("sample-data/glp1").path], into: temporaryStorePath())
        let state = try store.writer.read { try ProjectionStore.storeState(in: $0) }
        XCTAssertGreaterThan(state[0], 1_000, "the log's last seq")
        XCTAssertEqual(state[1], state[0], "the watermark after a whole ingest")
        // Shares that saw one state: each started and read once, nothing read whole.
        let reads = PartStates(repeating: (starts: 0, reads: 0), count: 3)
        var wholeReads = 0
        try ProjectionStore.readShares(3, store: store, doing: "testing", start: { part in reads.update(part) { $0.starts += 1 } },
                                       { part, _ in reads.update(part) { $0.reads += 1 } }, whole: { _ in wholeReads += 1 })
        XCTAssertEqual(reads.all.map(\.starts), [1, 1, 1])
        XCTAssertEqual(reads.all.map(\.reads), [1, 1, 1])
        XCTAssertEqual(wholeReads, 0)
        // A share that saw another state (as after an ingest committed between the shares):
        // every share is started again and everything is read in one pass.
        let again = PartStates(repeating: (starts: 0, reads: 0), count: 2)
        try ProjectionStore.readShares(2, store: store, doing: "testing",
                                       state: { part, db in try ProjectionStore.storeState(in: db) + [Int64(part)] },
                                       start: { part in again.update(part) { $0.starts += 1 } },
                                       { part, _ in again.update(part) { $0.reads += 1 } }, whole: { _ in wholeReads += 1 })
        XCTAssertEqual(again.all.map(\.starts), [2, 2])
        XCTAssertEqual(again.all.map(\.reads), [1, 1])
        XCTAssertEqual(wholeReads, 1)
        // An error in one share is thrown once both are done.
        XCTAssertThrowsError(try ProjectionStore.readShares(2, store: store, doing: "testing", start: { _ in }, { part, _ in
            if part == 1 { throw JourneyDecodingError(offset: 7, reason: "a test") }
        }, whole: { _ in XCTFail("read whole after an error") })) { error in
            XCTAssertEqual("\(error)", "store: while testing: journey bytes do not decode at offset 7: a test")
        }
    }
}
