import XCTest
@testable import Projections
@testable import Journeys

/// The stored report facts: what this version writes round-trips bit for bit, and facts an
/// older version wrote still decode.
final class JourneyFactsTests: XCTestCase {
    static var sample: JourneyFacts {
        var f = JourneyFacts.empty
        f.startedAt = 1_790_000_000_123_456
        f.firstEventAt = 1_790_000_000_000_001
        f.lastEventAt = 1_790_000_900_000_000
        f.lane = 1
        f.current = -1
        f.appVersion = "3.2.1"
        f.cohorts = 5
        f.flagsOn = 2
        f.bits = [15, 2, 0]
        f.seconds = [12.5, .nan, 0.1 + 0.2]
        return f
    }

    /// `sample` as version 1 wrote it (every seconds value as a double).
    static let version1Hex = "01018089bea2dbffad068280afa2dbffad0680a4d6fce1ffad06020106332e322e310502034f"
        + "00000000000029400240343333333333d33f"

    func assertSame(_ a: JourneyFacts, _ b: JourneyFacts, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual([a.startedAt, a.completedAt, a.firstEventAt, a.lastEventAt],
                       [b.startedAt, b.completedAt, b.firstEventAt, b.lastEventAt], file: file, line: line)
        XCTAssertEqual([a.lane, a.current], [b.lane, b.current], file: file, line: line)
        XCTAssertEqual(a.appVersion, b.appVersion, file: file, line: line)
        XCTAssertEqual([a.cohorts, a.flagsOn], [b.cohorts, b.flagsOn], file: file, line: line)
        XCTAssertEqual(a.bits, b.bits, file: file, line: line)
        XCTAssertEqual(a.seconds.map(\.bitPattern), b.seconds.map(\.bitPattern), file: file, line: line)
        XCTAssertEqual(a.drift, b.drift, file: file, line: line)
    }

    func testVersion1FactsStillDecode() throws {
        let bytes = JourneyBinaryTests.bytes(hex: Self.version1Hex)
        assertSame(try bytes.withUnsafeBytes { try JourneyFacts(binary: $0) }, Self.sample)
    }

    func testVersion3WritesWholeMicrosecondsAsVarintsAndRoundTrips() throws {
        let v1 = JourneyBinaryTests.bytes(hex: Self.version1Hex)
        let v2 = Self.sample.binary()
        XCTAssertEqual(v2.first, 3)
        // 12.5 s as a 4-byte varint instead of 8 bytes; 0.1 + 0.2 keeps its double; one
        // byte for no drift facts.
        XCTAssertEqual(v2.count, v1.count - 4 + 1)
        assertSame(try v2.withUnsafeBytes { try JourneyFacts(binary: $0) }, Self.sample)
        // Decoding into a value that held other facts (as a report does row after row).
        var reused = JourneyFacts.empty
        try v1.withUnsafeBytes { try reused.decode($0) }
        try v2.withUnsafeBytes { try reused.decode($0) }
        assertSame(reused, Self.sample)
    }
}
