import XCTest
import Foundation
import FunnelModel
import LogFiles
import Flows
import Simulator
@testable import Journeys

/// A journey saved through its steps' codes (`JourneyFold.finishCoded`) is saved byte for
/// byte as one whose steps are looked up by name, for every built-in flow, with steps the
/// definition does not have among them; and a fold that reads its events' step codes from
/// their parts folds the same journey.
final class JourneyCodesTests: XCTestCase {
    /// Each simulated user's events in `flow`, a few of them moved to steps the definition
    /// does not have (one that is also a value's name, to be written as that name).
    func usersEvents(_ flow: FlowDefinition, users: Int) throws -> [[RecordedEvent]] {
        let sim = try Simulation(flow: flow, options: SimulationOptions(users: users, seed: 5, days: 2)).run()
        let strange = ["not_a_step"] + flow.steps.flatMap { $0.collects.flatMap { $0.values ?? [] } }.prefix(1)
        let stepMember = try NSRegularExpression(pattern: #""step": ?"[^"]*""#)
        var byUser: [Int32: [RecordedEvent]] = [:]
        for i in 0..<sim.events.count {
            var line = sim.events.line(i)
            if i % 17 == 0 {
                line = stepMember.stringByReplacingMatches(in: line, range: NSRange(line.startIndex..., in: line),
                                                           withTemplate: "\"step\":\"\(strange[i % strange.count])\"")
            }
            guard case .success(let event) = EventDecoder.decode(line: line) else {
                XCTFail("simulated line \(i) does not decode")
                continue
            }
            byUser[sim.events.users[i], default: []].append(RecordedEvent(seq: Int64(i + 1), event: event, line: line))
        }
        return byUser.keys.sorted().compactMap { byUser[$0] }
    }

    func testCodedJourneysSaveAsLookedUpOnes() throws {
        var compared = 0, unknown = 0
        for definition in Flows.builtIn where JourneyFacts.supports(definition) {
            let context = FlowContext(definition)
            let prepared = try XCTUnwrap(context.facts)
            for events in try usersEvents(definition, users: 60) {
                let fold = try XCTUnwrap(JourneyFold.fold(events, rules: context.rules))
                for paths in [context.paths, nil] {
                    let (journey, codes) = fold.finishCoded(paths: paths)
                    XCTAssertEqual(journey, fold.finish())
                    XCTAssertEqual(codes.visits.count, journey.visits.count)
                    XCTAssertEqual(codes.runs.count, journey.viewRuns.count)
                    XCTAssertEqual(codes.path.count, journey.path.count)
                    XCTAssertEqual(journey.binary(resume: fold.resume, names: context.names, codes: codes),
                                   journey.binary(resume: fold.resume, names: context.names),
                                   "\(definition.id) \(journey.userID)")
                    // As bytes: the facts hold NaN for steps never seen, which no NaN equals.
                    XCTAssertEqual(JourneyFacts(journey, definition: definition, slots: context.slots, prepared: prepared, codes: codes).binary(),
                                   JourneyFacts(journey, definition: definition, slots: context.slots, prepared: prepared).binary(),
                                   "\(definition.id) \(journey.userID)")
                    compared += 1
                    unknown += codes.visits.filter { $0 < 0 }.count
                }
            }
        }
        XCTAssertGreaterThan(compared, 300)
        XCTAssertGreaterThan(unknown, 20, "visits of steps without a code")
    }

    /// The answers to one listed key are made ones the definition does not list (drift), which
    /// the held events' table finds once for its distinct properties (`EventTable.answers`),
    /// with the answers by their keys' codes.
    func testEventsReadingCodesFromTheirPartsFoldTheSameJourney() throws {
        let definition = try XCTUnwrap(Flows.builtIn.first { $0.id == "glp1" })
        let context = FlowContext(definition)
        let vocabulary = try XCTUnwrap(context.vocabulary)
        let listedKey = try XCTUnwrap(vocabulary.listedValues.keys.sorted().first)
        let answer = try NSRegularExpression(pattern: "\"\(listedKey)\": ?\"[^\"]*\"")
        var drifted = 0
        for original in try usersEvents(definition, users: 40) {
            let events = original.enumerated().map { n, e -> RecordedEvent in
                let line = answer.stringByReplacingMatches(in: e.line, range: NSRange(e.line.startIndex..., in: e.line),
                                                           withTemplate: "\"\(listedKey)\":\"not_listed_\(n % 2)\"")
                guard line != e.line, case .success(let event) = EventDecoder.decode(line: line) else { return e }
                return RecordedEvent(seq: e.seq, event: event, line: line)
            }
            // The user's events as an input holds them: parts numbered by key, read through views.
            var parts = EventParts()
            var keys: [String: Int32] = [:]
            var held: [HeldEvent] = []
            for e in events {
                let line = Array(e.line.utf8)
                try line.withUnsafeBufferPointer { b in
                    var decoder = EventDecoder()
                    guard case .success(let env) = decoder.envelope(b) else { throw CocoaError(.coderReadCorrupt) }
                    let text = "\(e.event.rawName)|\(e.event.step ?? "")"
                    let key = keys[text] ?? Int32(keys.count)
                    keys[text] = key
                    held.append(parts.hold(seq: e.seq, names: parts.names(ofKey: key, env, in: b), shape: -1, env, in: b))
                }
            }
            let table = parts.table
            let codes = table.stepCodes(flow: definition.id, vocabulary.stepCodes)
            XCTAssertEqual(codes.count, table.names.count)
            let looked = try XCTUnwrap(JourneyFold.fold(events, definition: definition)).finish(paths: context.paths)
            // With the steps' codes and unlisted answers alone, and with the answers and flags by
            // code too.
            let tableCodes = context.codes(of: table)
            XCTAssertEqual(tableCodes.answers.count, table.properties.count)
            var journey: Journey?
            XCTAssertEqual(tableCodes.flags.count, table.contexts.count)
            for (answers, flags) in [(CodedRows(), CodedRows()), (tableCodes.answers, tableCodes.flags)] {
                var coded = JourneyFold(userID: events[0].event.userID, flow: definition.id, rules: context.rules)
                var view = HeldView(held: held, table: table, i: 0,
                                    codes: TableCodes(stepCodes: codes, unlisted: tableCodes.unlisted, answers: answers,
                                                      flags: flags))
                for i in EventParts.foldOrder(held) {
                    view.i = i
                    coded.apply(view, explain: false)
                }
                journey = coded.finish(paths: context.paths)
                XCTAssertEqual(journey, looked)
                XCTAssertEqual(journey?.values.dictionary, looked.values.dictionary)
                // Saved, the same bytes either way.
                let byName = try XCTUnwrap(JourneyFold.fold(events, rules: context.rules))
                XCTAssertEqual(FlowFolder(context).encode(coded), FlowFolder(context).encode(byName))
            }
            guard let journey else { continue }
            if journey.driftSeen.keys.contains(where: { $0.hasPrefix(DriftKey.value(listedKey, "not_listed_")) }) { drifted += 1 }
        }
        XCTAssertGreaterThan(drifted, 10, "journeys with an unlisted answer")
    }

    /// A table's answers for a flow: for each of its properties, the sorted drift keys of the
    /// values its flow does not list for a listed key (a listed value, a key the flow lists no
    /// values for and a flow listing none give none), and its answers by their keys' codes
    /// (none when a key has no code); for each of its contexts, its flags by their codes (none
    /// when a flag is not declared).
    func testTableAnswersAreCodedAndUnlistedByProperties() throws {
        var parts = EventParts()
        var held: [HeldEvent] = []
        let lines = [#"{"event_id":"a","event":"onboarding.step_completed","user_id":"u","ts":"2026-10-01T10:00:00Z","flow":"f","properties":{"goal":"lose","note":"x"},"context":{"flags":{"beta":true}}}"#,
                     #"{"event_id":"b","event":"onboarding.step_completed","user_id":"u","ts":"2026-10-01T10:01:00Z","flow":"f","properties":{"goal":"win","size":2,"note":"y"},"context":{"flags":{"beta":false,"rogue":true}}}"#,
                     #"{"event_id":"c","event":"onboarding.step_completed","user_id":"u","ts":"2026-10-01T10:02:00Z","flow":"f","properties":{"size":3,"goal":"keep"}}"#]
        for (n, text) in lines.enumerated() {
            let line = Array(text.utf8)
            try line.withUnsafeBufferPointer { b in
                var decoder = EventDecoder()
                guard case .success(let env) = decoder.envelope(b) else { throw CocoaError(.coderReadCorrupt) }
                held.append(parts.hold(seq: Int64(n + 1), names: parts.names(ofKey: 0, env, in: b), shape: -1, env, in: b))
            }
        }
        let table = parts.table
        let listed: [String: Set<String>] = ["goal": ["lose", "keep"], "size": ["1"]]
        let names = JourneyNames(names: ["start", "size", "goal", "note", "beta", "alpha"], answerKeys: ["size", "goal"],
                                 flagKeys: ["beta", "alpha"])
        let keys = names.answerKeys
        XCTAssertEqual(keys.keys, ["goal", "size"])
        XCTAssertEqual(names.flagKeys.keys, ["alpha", "beta"])
        let answers = table.answers(flow: "f", names: names, listed: listed)
        XCTAssertEqual(answers.unlisted.count, table.properties.count)
        XCTAssertEqual(held.map { answers.unlisted[Int($0.properties)] },
                       [[], [DriftKey.value("goal", "win"), DriftKey.value("size", "2")].sorted(),
                        [DriftKey.value("size", "3")]])
        // "note" has no code: those properties are set by name.
        XCTAssertNil(answers.coded[Int(held[0].properties)])
        XCTAssertNil(answers.coded[Int(held[1].properties)])
        let coded = try XCTUnwrap(answers.coded[Int(held[2].properties)])
        XCTAssertEqual(coded.pairs.sorted { $0.code < $1.code }.map(\.code), [0, 1])
        XCTAssertEqual(coded.pairs.sorted { $0.code < $1.code }.map(\.value), [.string("keep"), .number("3")])
        // Flags by context: "rogue" is not declared; the third line has no context (no flags).
        XCTAssertEqual(answers.flags.count, table.contexts.count)
        let beta = try XCTUnwrap(answers.flags[Int(held[0].context)])
        XCTAssertEqual(beta.pairs.map(\.code), [1])
        XCTAssertEqual(beta.pairs.map(\.value), [.bool(true)])
        XCTAssertNil(answers.flags[Int(held[1].context)])
        XCTAssertEqual(answers.flags[Int(held[2].context)]?.pairs.count, 0)
        // Asked again, the same (worked out once a flow); a flow with no keys and listing
        // nothing has none of them.
        XCTAssertEqual(table.answers(flow: "f", names: names, listed: listed).unlisted, answers.unlisted)
        let none = table.answers(flow: "g", names: .none, listed: [:])
        XCTAssertTrue(none.unlisted.isEmpty)
        XCTAssertTrue(none.coded.isEmpty)
        XCTAssertTrue(none.flags.isEmpty)
    }
}
