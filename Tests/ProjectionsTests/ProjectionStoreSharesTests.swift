import XCTest
import TestSupport
import Foundation
import FunnelModel
import Flows
@testable import Projections
@testable import Journeys
import Workers

/// Shares read at once are kept when they saw one state of the store; otherwise what they
/// read is dropped and everything is read in one pass.
final class ProjectionStoreSharesTests: XCTestCase {
    func testSharesAgreeOnlyWhenTheySawOneState() throws {
        let store = try ingest([repositoryRoot.appendingPathComponent("sample-data/glp1").path], into: temporaryStorePath())
        let state = try store.writer.read { try ProjectionStore.storeState(in: $0) }
        XCTAssertGreaterThan(state[0], 1_000, "the log's last seq")
        XCTAssertEqual(state[1], state[0], "the watermark after a whole ingest")
        // Shares that saw one state: each read once from the blank and kept, in share order,
        // nothing read whole.
        let reads = Locked([0, 0, 0])
        var wholeReads = 0
        let kept = try ProjectionStore.readShares(3, into: CollectedShares<Int>(), store: store, doing: "testing", { part, _, read in
            reads.withLock { $0[part] += 1 }
            read.add(part)
        }, whole: { _, read in
            wholeReads += 1
            read.add(-1)
        })
        XCTAssertEqual(kept.shares, [[0], [1], [2]])
        XCTAssertEqual(reads.withLock { $0 }, [1, 1, 1])
        XCTAssertEqual(wholeReads, 0)
        // A share that saw another state (as after an ingest committed between the shares):
        // what the shares read is dropped and everything is read in one pass, from the blank.
        let again = Locked([0, 0])
        let whole = try ProjectionStore.readShares(2, into: CollectedShares<Int>(), store: store, doing: "testing",
                                                   state: { part, db in try ProjectionStore.storeState(in: db) + [Int64(part)] },
                                                   { part, _, read in
                                                       again.withLock { $0[part] += 1 }
                                                       read.add(part)
                                                   }, whole: { _, read in
                                                       wholeReads += 1
                                                       read.add(-1)
                                                   })
        XCTAssertEqual(whole.shares, [[-1]])
        XCTAssertEqual(again.withLock { $0 }, [1, 1])
        XCTAssertEqual(wholeReads, 1)
        // An error in one share is thrown once both are done.
        XCTAssertThrowsError(try ProjectionStore.readShares(2, into: CollectedShares<Int>(), store: store, doing: "testing", { part, _, _ in
            if part == 1 { throw JourneyDecodingError(offset: 7, reason: "a test") }
        }, whole: { _, _ in XCTFail("read whole after an error") })) { error in
            XCTAssertEqual("\(error)", "store: while testing: journey bytes do not decode at offset 7: a test")
        }
    }
}
