import XCTest
import GRDB
@testable import EventStore

final class RunCollectorTests: XCTestCase {
    private func makeTable() throws -> DatabaseQueue {
        let db = try DatabaseQueue()
        try db.write { db in
            try db.execute(sql: """
                CREATE TABLE user_runs (user INTEGER NOT NULL, flow INTEGER NOT NULL, first_seq INTEGER NOT NULL,
                    events INTEGER NOT NULL, last_ts_us INTEGER NOT NULL, seqs BLOB NOT NULL,
                    PRIMARY KEY (user, flow, first_seq)) WITHOUT ROWID
                """)
        }
        return db
    }

    /// Interleaved users, one of them in two flows under the same parser number, and rows
    /// without a number (as the v2 migration adds them): one run per (user, flow), its seqs
    /// in arrival order, its count and latest time; a flush starts the runs afresh.
    func testRunsKeepEachUserAndFlowsSeqsInOrder() throws {
        let queue = try makeTable()
        try queue.write { db in
            var runs = RunCollector()
            // (user atom, parser number, flow atom, seq, ts)
            let rows: [(Int64, Int32, Int64, Int64, Int64)] = [
                (100, 0, 7, 1, 50), (200, 1, 7, 2, 40), (100, 0, 8, 3, 10), (100, 0, 7, 4, 30),
                (300, -1, 7, 5, 5), (200, 1, 7, 6, 90), (300, -1, 7, 7, 1), (100, 0, 8, 8, 20),
            ]
            for (user, number, flow, seq, ts) in rows {
                runs.add(user: user, flow: flow, seq: seq, ts: ts, userNumber: number)
            }
            XCTAssertEqual(runs.held, 8)
            try runs.flush(db)
            XCTAssertEqual(runs.held, 0)
            // After a flush, parser number 0 comes back in another flow first.
            runs.add(user: 100, flow: 8, seq: 9, ts: 60, userNumber: 0)
            runs.add(user: 100, flow: 7, seq: 10, ts: 70, userNumber: 0)
            runs.add(user: 100, flow: 8, seq: 11, ts: 65, userNumber: 0)
            try runs.flush(db)
            let found = try Row.fetchAll(db, sql: "SELECT user, flow, first_seq, events, last_ts_us, seqs FROM user_runs ORDER BY user, flow, first_seq")
            let decoded: [[Int64]] = found.map { row in
                var out: [Int64] = []
                let blob: Data = row[5]
                XCTAssertTrue(blob.withUnsafeBytes { UserRuns.decode($0, into: &out) })
                return [row[0], row[1], row[2], row[3], row[4]] + out
            }
            XCTAssertEqual(decoded, [
                [100, 7, 1, 2, 50, 1, 4],
                [100, 7, 10, 1, 70, 10],
                [100, 8, 3, 2, 20, 3, 8],
                [100, 8, 9, 2, 65, 9, 11],
                [200, 7, 2, 2, 90, 2, 6],
                [300, 7, 5, 2, 5, 5, 7],
            ])
        }
    }
}
