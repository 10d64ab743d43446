import XCTest
@testable import ClickHouseStore

/// Ids go to the server as TSV, escaped.
final class ClickHouseSQLTests: XCTestCase {
    func testIdsGoToTheServerEscapedAsTSV() {
        var out: [UInt8] = []
        Array("a\tb\\c'd\ne\r\0f".utf8).withUnsafeBufferPointer { ClickHouseSQL.appendTSV($0, to: &out) }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), #"a\tb\\c\'d\ne\r\0f"#)
        XCTAssertEqual(ClickHouseSQL.tsv("plain-id"), "plain-id")
        XCTAssertEqual(ClickHouseSQL.tsv("it's"), #"it\'s"#)
    }
}
