import XCTest
import GRDB
@testable import EventStore

/// One `PriorEvents` answers user after user (what an ingest's fold asks of each returning
/// user) as the log itself does: the count and latest time of the events before an input.
final class PriorEventsTests: XCTestCase {
    func testOneReaderCountsEachUsersEarlierEventsAsTheLogDoes() throws {
        let (store, inputs, accepted) = try glp1SampleStore()
        XCTAssertGreaterThan(inputs, 1)
        XCTAssertGreaterThan(accepted, 1_000)
        try store.writer.read { db in
            // Each input's first seq: runs never span inputs, so counts before it are whole runs.
            let firsts = try Int64.fetchAll(db, sql: "SELECT min(seq) FROM events GROUP BY input_id ORDER BY 1")
            XCTAssertGreaterThan(firsts.count, 1)
            let users = try String.fetchAll(db, sql: """
                SELECT a.text FROM user_runs r JOIN atoms a ON a.id = r.user GROUP BY r.user ORDER BY a.text LIMIT 80
                """)
            XCTAssertEqual(users.count, 80)
            let prior = try PriorEvents(db, atoms: AtomIDs(db))
            var withEarlier = 0
            for user in users {
                for first in firsts {
                    let got = try prior.of(user: user, flow: "glp1", before: first)
                    let row = try XCTUnwrap(Row.fetchOne(db, sql: """
                        SELECT count(*), max(e.ts_us) FROM events e JOIN atoms a ON a.id = e.user
                        JOIN atoms f ON f.id = e.flow WHERE a.text = ? AND f.text = 'glp1' AND e.seq < ?
                        """, arguments: [user, first]))
                    XCTAssertEqual(got.count, row[0] as Int, "\(user) before \(first)")
                    XCTAssertEqual(got.lastMicros, row[1] as Int64?, "\(user) before \(first)")
                    if got.count > 0 { withEarlier += 1 }
                }
            }
            XCTAssertGreaterThan(withEarlier, 80)
            // A user or flow the store does not know has no earlier events.
            XCTAssertEqual(try prior.of(user: "nobody-here", flow: "glp1", before: .max).count, 0)
            XCTAssertNil(try prior.of(user: users[0], flow: "no-such-flow", before: .max).lastMicros)
        }
    }
}
