import XCTest
import FunnelModel
import LogFiles
@testable import EventStore
import TestSupport
import StoreCore

/// Damaged and unusual inputs: a gzip member that fails its check stores none of its lines
/// (whatever its size), other compressors are refused with nothing written, padding is no
/// fault, and what real clients write (a byte order mark, a lone surrogate) is read.
final class DamagedInputTests: XCTestCase {
    var dir: URL!
    override func setUp() { dir = tempDir() }

    func store() throws -> EventStore { try EventStore(path: dir.appendingPathComponent("s.sqlite").path) }

    func ingest(_ store: EventStore, _ paths: [String]) throws -> IngestSummary {
        let s = try Ingestor(store: store, options: IngestOptions(now: fixedClock(1_000))).ingest(try InputSource.discover(paths))
        XCTAssertTrue(s.isBalanced)
        return s
    }

    /// Events of users u-0000 … u-0009, ids `m<member>-<n>`.
    func member(_ m: Int, count: Int) -> String {
        (0..<count).map { n in
            #"{"event_id":"m\#(m)-\#(n)","event":"onboarding.step_viewed","user_id":"u-000\#(n % 10)","ts":"2026-10-01T10:00:00Z","flow":"glp1","step":"s\#(n % 7)"}"# + "\n"
        }.joined()
    }

    /// A deflated member of 200 events, then a stored one of `count` events (bytes as they
    /// are), then a deflated one of 200; the path and where the stored member starts.
    func file(storedEvents count: Int) throws -> (path: String, storedStart: Int, bodies: [String]) {
        let path = dir.appendingPathComponent("log-\(count).ndjson.gz").path
        let bodies = [member(0, count: 200), member(1, count: count), member(2, count: 200)]
        var storedStart = 0
        for (m, body) in bodies.enumerated() {
            if m == 1 { storedStart = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0 }
            try GzipWriter(path: path, level: m == 1 ? 0 : 6, append: m > 0).writeMember(body)
        }
        return (path, storedStart, bodies)
    }

    /// A file cut short inside its third member keeps the two members before the cut, and
    /// its failure says so ("partial … kept 400 lines"), not "nothing stored".
    func testATruncatedInputSaysWhatItKept() throws {
        let (path, _, _) = try file(storedEvents: 300)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let cut = dir.appendingPathComponent("cut.ndjson.gz").path
        try bytes.prefix(bytes.count - 20).write(to: URL(fileURLWithPath: cut))
        let s = try ingest(try store(), [cut])
        XCTAssertEqual(s.failures.map(\.kind), [.truncated])
        XCTAssertEqual(s.accepted, 500)
        let text = try XCTUnwrap(s.failures.first?.text)
        XCTAssertTrue(text.hasPrefix("partial: \(cut): byte "), text)
        XCTAssertTrue(text.hasSuffix("(kept 500 lines)"), text)
    }

    /// The issue's case, on both read paths: `u-0009` → `u-0008` inside a stored member of
    /// 1.9 MB (streamed) and of 620 KB (decompressed whole). Nothing of that member is
    /// stored; the intact file ingested afterwards stores every line, with no conflict.
    func testAMemberThatFailsItsCheckStoresNothing() throws {
        for count in [14_000, 4_500] {
            setUp()
            let (path, storedStart, bodies) = try file(storedEvents: count)
            var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let needle = Array(#""u-0009""#.utf8)
            let at = try XCTUnwrap((storedStart + 100_000..<bytes.count).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) })
            bytes[at + 6] ^= 0x01
            let damaged = dir.appendingPathComponent("damaged-\(count).ndjson.gz").path
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))

            let st = try store()
            let first = try ingest(st, [damaged])
            XCTAssertEqual(first.failures.map(\.kind), [.corrupt])
            XCTAssertTrue(first.failures[0].message.contains("incorrect data check in gzip member 2"), first.failures[0].message)
            XCTAssertEqual(first.failures[0].linesKept, 200)
            XCTAssertEqual(first.accepted, 200)
            let stored = try st.storedEvents()
            XCTAssertEqual(Set(stored.map { $0.recorded.event.id }), Set((0..<200).map { "m0-\($0)" }))
            XCTAssertEqual(try st.inputs().map(\.outcome), [.partial])

            let second = try ingest(st, [path])
            XCTAssertEqual(second.failures, [])
            XCTAssertEqual([second.lines, second.accepted, second.duplicates, second.conflicts], [count + 400, count + 200, 200, 0])
            let all = try st.storedEvents()
            XCTAssertEqual(all.count, count + 400)
            let lines = bodies.joined().split(separator: "\n")
            for e in try st.events(user: "u-0008", flow: "glp1") + st.events(user: "u-0009", flow: "glp1") {
                XCTAssertTrue(lines.contains(Substring(e.line)), e.line)
            }
        }
    }

    func testOtherCompressorsStoreNothingAndAreNotMarkedIngested() throws {
        let xz = packageRoot.appendingPathComponent("Tests/Fixtures/compressed/xz-named.ndjson.gz").path
        let st = try store()
        for _ in 0..<2 {
            let s = try ingest(st, [xz])
            XCTAssertEqual(s.lines, 0)
            XCTAssertEqual(s.skipped, [])
            XCTAssertEqual(s.failures.map(\.kind), [.unsupported])
            XCTAssertEqual(s.failures.first?.text, "not read: \(xz): xz data, not gzip: decompress it first (nothing stored)")
            XCTAssertEqual(s.exitCode(strict: false), 2)
            XCTAssertEqual(try st.inputs().count, 0)
        }
        let zst = packageRoot.appendingPathComponent("Tests/Fixtures/compressed/events.ndjson.zst").path
        let s = try ingest(st, [zst])
        XCTAssertEqual([s.lines, s.accepted, s.quarantined], [20, 20, 0])
        XCTAssertEqual(try st.inputs().map(\.outcome), [.complete])
    }

    /// An input gone by the time it is read ahead (hashed on the parsing thread while the one
    /// before is written) is reported as unreadable when its turn comes, and the inputs on
    /// either side of it are stored.
    func testAnInputGoneBeforeItsReadAheadIsReportedAndTheOthersStored() throws {
        let first = dir.appendingPathComponent("first.ndjson.gz").path
        let last = dir.appendingPathComponent("last.ndjson.gz").path
        try GzipWriter(path: first, level: 6, append: false).writeMember(member(3, count: 50))
        try GzipWriter(path: last, level: 6, append: false).writeMember(member(4, count: 70))
        let gone = dir.appendingPathComponent("gone.ndjson.gz").path
        let st = try store()
        let s = try Ingestor(store: st, options: IngestOptions(now: fixedClock(1_000)))
            .ingest([InputSource(path: first), InputSource(path: gone), InputSource(path: last)])
        XCTAssertTrue(s.isBalanced)
        XCTAssertEqual(s.failures.map(\.kind), [.unreadable])
        XCTAssertEqual(s.failures.map(\.path), [gone])
        XCTAssertEqual(s.accepted, 120)
        XCTAssertEqual(try st.inputs().map(\.outcome), [.complete, .complete])
    }

    func testZeroPaddingAfterTheLastMemberIsNoFault() throws {
        let (path, _, _) = try file(storedEvents: 100)
        let padded = dir.appendingPathComponent("padded.ndjson.gz").path
        try Data(Array(try Data(contentsOf: URL(fileURLWithPath: path))) + [UInt8](repeating: 0, count: 512))
            .write(to: URL(fileURLWithPath: padded))
        let st = try store()
        let s = try ingest(st, [padded])
        XCTAssertEqual(s.failures, [])
        XCTAssertEqual(s.accepted, 500)
        let again = try ingest(st, [padded])
        XCTAssertEqual(again.skipped.map(\.previousOutcome), [.complete])
        XCTAssertEqual(again.exitCode(strict: false), 0)
    }

    /// A byte order mark costs no event, plain or gzip; a lone surrogate escape is accepted
    /// and its line stored byte for byte.
    func testByteOrderMarkAndLoneSurrogate() throws {
        let surrogate = #"{"event_id":"s-1","event":"onboarding.started","user_id":"u-1","ts":"2026-10-01T10:00:00Z","flow":"glp1","properties":{"name":"Anna \ud83d"}}"#
        let text = [UInt8]([0xEF, 0xBB, 0xBF]) + Array((member(0, count: 3) + surrogate + "\n").utf8)
        let plain = dir.appendingPathComponent("bom.ndjson").path
        try Data(text).write(to: URL(fileURLWithPath: plain))
        let gz = dir.appendingPathComponent("bom.ndjson.gz").path
        try GzipWriter(path: gz).writeMember(text.map { $0 })
        for path in [plain, gz] {
            setUp()
            let st = try store()
            let s = try ingest(st, [path])
            XCTAssertEqual([s.lines, s.accepted, s.quarantined], [4, 4, 0], path)
            let events = try st.events(user: "u-0000", flow: "glp1")
            XCTAssertEqual(events.first?.line, String(member(0, count: 1).dropLast()))
            let cut = try XCTUnwrap(try st.events(user: "u-1", flow: "glp1").first)
            XCTAssertEqual(cut.line, surrogate)
            XCTAssertEqual(cut.event.properties["name"], .string("Anna \u{FFFD}"))
        }
    }
}
