import XCTest
import Foundation
import FunnelModel
import LogFiles
import Flows
import LineParsing
import StoreCore
@testable import EventStore
@testable import Projections
@testable import Journeys

/// Journeys folded input after input in memory are the ones folded from all their events at
/// once; a journey with a late event is given up, and no more than `capacity` are held.
final class HeldJourneysTests: XCTestCase {
    static let glp1 = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("sample-data/glp1")

    /// The events read so far by user (flow glp1), and the next seq.
    struct Log {
        var events: [String: [RecordedEvent]] = [:]
        var next: Int64 = 1
    }

    /// Reads one input into `held`, every line with an envelope accepted in line order, and
    /// records its events in `log`; returns the users whose new events do not all come after
    /// their earlier ones (time, then seq).
    func read(_ path: String, into held: HeldJourneys, log: inout Log) throws -> Set<String> {
        let sink = held.makeEventSink()
        var accepted = AcceptedLines()
        let decoder = EventDecoder()
        var cache = EventCache()
        var new: [String: [RecordedEvent]] = [:]
        _ = try LineParser.run(path: path, batchLines: 1_024, batchBytes: 1 << 20, eventSink: sink) { batch in
            batch.bytes.withUnsafeBufferPointer { b in
                for line in batch.lines {
                    guard let env = line.envelope else { continue }
                    accepted.append(line: line.number, seq: log.next)
                    let event = decoder.event(from: env, in: b, cache: &cache)
                    if event.flow == "glp1" { new[event.userID, default: []].append(RecordedEvent(seq: log.next, event: event, line: "")) }
                    log.next += 1
                }
            }
            return true
        }
        held.add(sink, accepted: accepted)
        var late = Set<String>()
        func inOrder(_ a: RecordedEvent, _ b: RecordedEvent) -> Bool { (a.event.time.micros, a.seq) < (b.event.time.micros, b.seq) }
        for (user, events) in new {
            if let before = log.events[user]?.max(by: inOrder), let first = events.min(by: inOrder), inOrder(first, before) {
                late.insert(user)
            }
            log.events[user, default: []] += events
        }
        return late
    }

    func testJourneysFoldedInputAfterInputAreTheWholeFoldsAndLateOnesAreGivenUp() throws {
        let definition = try XCTUnwrap(Flows.builtIn.first { $0.id == "glp1" })
        let held = HeldJourneys(definitions: Flows.builtIn)
        var log = Log()
        var late = Set<String>()
        let inputs = try InputSource.discover([Self.glp1.path])
        XCTAssertEqual(inputs.count, 9)
        for input in inputs { late.formUnion(try read(input.path, into: held, log: &log)) }
        XCTAssertEqual(held.flows, ["glp1"])
        let users = Set(held.users(of: "glp1"))
        XCTAssertEqual(log.events.count, 393)
        XCTAssertFalse(late.isEmpty)
        XCTAssertEqual(users, Set(log.events.keys).subtracting(late))
        let folder = FlowFolder(definition)
        for user in users {
            let got = try XCTUnwrap(held.facts(flow: "glp1", user: user))
            let events = try XCTUnwrap(log.events[user])
            let expected = try XCTUnwrap(folder.facts(of: events))
            XCTAssertEqual(got.facts.binary(), expected.binary(), user)
            XCTAssertEqual(got.throughSeq, events.map(\.seq).max(), user)
            XCTAssertEqual(got.lastMicros, events.map(\.event.time.micros).max(), user)
        }
    }

    func testNoMoreThanCapacityJourneysAreHeld() throws {
        let held = HeldJourneys(definitions: Flows.builtIn, capacity: 10, bufferLimit: 250_000)
        var log = Log()
        let first = try XCTUnwrap(try InputSource.discover([Self.glp1.path]).first)
        XCTAssertEqual(try read(first.path, into: held, log: &log), [])
        XCTAssertGreaterThan(log.events.count, 10)
        XCTAssertEqual(held.users(of: "glp1").count, 10)
    }
}
