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

    func testInsertsGoCompressedToAnotherMachineOrWhenAsked() throws {
        let remote = try ClickHouseLocation("clickhouse://ch1:8123,localhost:8124/db?cluster=c")
        XCTAssertNil(remote.compress)
        XCTAssertEqual(remote.servers.map(\.isLoopback), [false, true])
        XCTAssertEqual(remote.servers.map { ClickHouseClient(server: $0, database: "db", user: nil, password: nil).compress }, [true, false])
        let asked = try ClickHouseLocation("clickhouse://127.0.0.1:8123/db?compress=gzip")
        XCTAssertEqual(asked.compress, true)
        XCTAssertEqual(asked.description, "clickhouse://127.0.0.1:8123/db?compress=gzip")
        let plain = try ClickHouseLocation("clickhouse://ch1:8123,ch2:8123/db?cluster=c&compress=none")
        XCTAssertEqual(plain.compress, false)
        XCTAssertEqual(plain.description, "clickhouse://ch1:8123,ch2:8123/db?cluster=c&compress=none")
        XCTAssertEqual(ClickHouseServer(host: "127.0.1.1", port: 1).isLoopback, true)
        XCTAssertEqual(ClickHouseServer(host: "[::1]", port: 1).isLoopback, true)
    }

    func testBadAddressesSayWhyWithoutThePassword() {
        let cases: [(String, String)] = [
            ("clickhouse://ana:hunter2@h1:1,h2:2/db", "several servers need ?cluster=NAME"),
            ("clickhouse://ana:hunter2@h1:99999/db", "not a number from 1 to 65535"),
            ("clickhouse://ana:hunter2@h1:1/my-db", "is not letters, digits and _"),
            ("clickhouse://h1:1", "no /DATABASE"),
            ("clickhouse://h1:1/db?shards=2", "unknown parameter \"shards\""),
            ("clickhouse://h1:1,h1:1/db?cluster=c", "a server is listed twice"),
            ("clickhouse://ana:hunter2@h1:1/db?compress=lz4", "compress is gzip or none, not \"lz4\""),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try ClickHouseLocation(text), text) { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains(reason), message)
                XCTAssertFalse(message.contains("hunter2"), message)
                XCTAssertEqual((error as? ClickHouseError)?.kind, .address)
            }
        }
    }

    func testQuotedLiterals() {
        XCTAssertEqual(ClickHouseSQL.quote("it's a \\ path\n"), "'it\\'s a \\\\ path\\n'")
        XCTAssertEqual(ClickHouseSQL.list([3, 1] as [UInt64]), "(3, 1)")
        XCTAssertEqual(ClickHouseSQL.list([] as [UInt64]), "(NULL)")
    }
}
