import XCTest
import Foundation
import FunnelModel
import LogFiles
import LineParsing
import StoreCore
@testable import Journeys

/// An input's events grouped by user and flow on the parsing thread: a sink told to forget
/// what it took (the input is parsed again) is as a new one.
final class ParsedGroupsTests: XCTestCase {
    static let day = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("sample-data/glp1/events-2026-10-01.ndjson.gz").path

    /// Parses the sample day into `sink`; every line with an envelope accepted, seq = line.
    func parse(into sink: ParsedGroups) throws -> AcceptedLines {
        var accepted = AcceptedLines()
        _ = try LineParser.run(path: Self.day, batchLines: 1_024, batchBytes: 1 << 20, eventSink: sink) { batch in
            for line in batch.lines where line.envelope != nil { accepted.append(line: line.number, seq: Int64(line.number)) }
            return true
        }
        return accepted
    }

    /// Each user and flow handed on, with its events' seqs (nil: past the limit).
    func taken(_ sink: ParsedGroups, _ accepted: AcceptedLines) -> [String] {
        var out: [String] = []
        sink.takeAccepted(accepted) { key, events in
            out.append("\(key.flow) \(key.user) \(events.map { $0.map(\.seq).description } ?? "log")")
        }
        return out
    }

    func testASinkThatForgetsAllIsAsANewOne() throws {
        // A limit the day's events pass: some users are left to the log.
        let fresh = ParsedGroups(bufferLimit: 300)
        let expected = taken(fresh, try parse(into: fresh))
        XCTAssertTrue(expected.contains { $0.hasSuffix(" log") })
        XCTAssertTrue(expected.contains { !$0.hasSuffix(" log") })

        let again = ParsedGroups(bufferLimit: 300)
        let accepted = try parse(into: again)
        XCTAssertGreaterThan(again.held, 250)
        again.forgetAll()
        XCTAssertEqual(again.held, 0)
        XCTAssertEqual(again.room, 300)
        XCTAssertEqual(taken(again, accepted), [])
        XCTAssertEqual(taken(again, try parse(into: again)), expected)
    }

    func testDetachMovesTheEventsTakenAndGoesOnAsANewSink() throws {
        let fresh = ParsedGroups(bufferLimit: 1 << 20)
        let expected = taken(fresh, try parse(into: fresh))
        XCTAssertGreaterThan(expected.count, 20)

        let sink = ParsedGroups(bufferLimit: 1 << 20)
        let accepted = try parse(into: sink)
        let held = sink.held
        let ended = try XCTUnwrap(sink.detach() as? ParsedGroups)
        XCTAssertEqual(ended.held, held)
        XCTAssertEqual(sink.held, 0)
        XCTAssertEqual(sink.room, 1 << 20)
        XCTAssertEqual(taken(sink, accepted), [])
        XCTAssertEqual(taken(ended, accepted), expected)
        // The sink goes on as a new one: the next input's numbers start over.
        XCTAssertEqual(taken(sink, try parse(into: sink)), expected)

        // A sink that does not end segments keeps what it took.
        let whole = ParsedGroups(bufferLimit: 1 << 20, segmented: false)
        let wholeAccepted = try parse(into: whole)
        XCTAssertNil(whole.detach())
        XCTAssertEqual(taken(whole, wholeAccepted), expected)
    }
}
