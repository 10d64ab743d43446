import XCTest
@testable import ClickHouseStore

final class ClickHouseLocationTests: XCTestCase {
    func testOneServer() throws {
        let l = try ClickHouseLocation("clickhouse://127.0.0.1:8123/funnel")
        XCTAssertEqual(l.servers, [ClickHouseServer(host: "127.0.0.1", port: 8123)])
        XCTAssertEqual(l.database, "funnel")
        XCTAssertNil(l.cluster)
        XCTAssertNil(l.user)
        XCTAssertEqual(l.description, "clickhouse://127.0.0.1:8123/funnel")
    }

    func testClusterWithCredentialsNeverShowsThePassword() throws {
        let l = try ClickHouseLocation("clickhouse://ana:s%40cret@ch1:8123,ch2/events_db?cluster=events")
        XCTAssertEqual(l.servers.map(\.description), ["ch1:8123", "ch2:8123"])
        XCTAssertEqual(l.user, "ana")
        XCTAssertEqual(l.password, "s@cret")
        XCTAssertEqual(l.cluster, "events")
        XCTAssertEqual(l.description, "clickhouse://ana:***@ch1:8123,ch2:8123/events_db?cluster=events")
        XCTAssertFalse(l.description.contains("cret"))
    }

    func testBadAddressesSayWhyWithoutThePassword() {
        let cases: [(String, String)] = [
            ("clickhouse://ana:hunter2@h1:1,h2:2/db", "several servers need ?cluster=NAME"),
            ("clickhouse://ana:hunter2@h1:99999/db", "not a number from 1 to 65535"),
            ("clickhouse://ana:hunter2@h1:1/my-db", "is not letters, digits and _"),
            ("clickhouse://h1:1", "no /DATABASE"),
            ("clickhouse://h1:1/db?shards=2", "unknown parameter \"shards\""),
            ("clickhouse://h1:1,h1:1/db?cluster=c", "a server is listed twice"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try ClickHouseLocation(text), text) { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains(reason), message)
                XCTAssertFalse(message.contains("hunter2"), message)
            }
        }
    }

    func testQuotedLiterals() {
        XCTAssertEqual(ClickHouseSQL.quote("it's a \\ path\n"), "'it\\'s a \\\\ path\\n'")
        XCTAssertEqual(ClickHouseSQL.list([3, 1] as [UInt64]), "(3, 1)")
        XCTAssertEqual(ClickHouseSQL.list([] as [UInt64]), "(NULL)")
    }
}
