import XCTest
import Foundation
import FunnelModel
import Flows
@testable import Projections

/// Shares read at once agree when they saw one state of the store, and not otherwise.
final class ProjectionStoreSharesTests: XCTestCase {
    func testSharesAgreeOnlyWhenTheySawOneState() throws {
        let store = try ingest([repositoryRoot.appendingPathComponent("sample-data/glp1").path], into: temporaryStorePath())
        let state = try store.writer.read { try ProjectionStore.storeState(in: $0) }
        XCTAssertGreaterThan(state[0], 1_000, "the log's last seq")
        XCTAssertEqual(state[1], state[0], "the watermark after a whole ingest")
        let reads = PartStates(repeating: 0, count: 3)
        XCTAssertTrue(try ProjectionStore.readShares(3, store: store, doing: "testing") { part, _ in
            reads.update(part) { $0 += 1 }
        })
        XCTAssertEqual(reads.all, [1, 1, 1])
        // A share that saw another state (as after an ingest committed between the shares).
        XCTAssertFalse(try ProjectionStore.readShares(2, store: store, doing: "testing",
                                                      state: { part, db in try ProjectionStore.storeState(in: db) + [Int64(part)] },
                                                      { _, _ in }))
        // An error in one share is thrown once both are done.
        XCTAssertThrowsError(try ProjectionStore.readShares(2, store: store, doing: "testing") { part, _ in
            if part == 1 { throw JourneyDecodingError(offset: 7, reason: "a test") }
        }) { error in
            XCTAssertEqual("\(error)", "store: while testing: journey bytes do not decode at offset 7: a test")
        }
    }
}
