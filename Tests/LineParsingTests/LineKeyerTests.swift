import XCTest
import FunnelModel
import LogFiles
@testable import LineParsing

final class LineKeyerTests: XCTestCase {
    /// The parser numbers keys, users and shapes in first-seen order, and a line of a known
    /// shape gets the cuts the writer would have picked with its skeleton.
    func testTheParserNumbersKeysUsersAndShapesInFirstSeenOrder() throws {
        let ctx = #""context":{"platform":"ios"}"#
        let lines = [
            #"{"event_id":"a1","event":"onboarding.started","user_id":"u-1","ts":"2026-10-01T10:00:00Z","flow":"glp1",\#(ctx)}"#,
            #"{"event_id":"a2","event":"onboarding.step_viewed","user_id":"u-1","ts":"2026-10-01T10:00:01Z","flow":"glp1","step":"goal",\#(ctx)}"#,
            #"{"event_id":"b1","event":"onboarding.started","user_id":"u-2","ts":"2026-10-01T10:00:02Z","flow":"glp1",\#(ctx)}"#,
            #"{"event_id":"a3","event":"onboarding.step_viewed","user_id":"u-1","ts":"2026-10-01T10:00:03Z","flow":"glp1","step":"goal",\#(ctx)}"#,
            #"{"event_id":"b2","user_id":"u-2","event":"onboarding.started","ts":"2026-10-01T10:00:04Z","flow":"glp1",\#(ctx)}"#,
        ]
        var decoder = EventDecoder()
        var keyer = LineKeyer()
        var got: [LineKeys] = []
        for line in lines {
            let bytes = Array(line.utf8)
            let keys = try bytes.withUnsafeBufferPointer { b -> LineKeys in
                guard case .success(let env) = decoder.envelope(b) else { throw CocoaError(.coderReadCorrupt) }
                let k = keyer.keys(env, start: 0, end: b.count, in: b)
                // The writer's cuts for a known shape are those of the full shape.
                var full = LineShape(), cutsOnly = LineShape()
                full.shape(env, lineStart: 0, lineEnd: b.count, in: b)
                cutsOnly.pickCuts(env, lineStart: 0, lineEnd: b.count)
                XCTAssertEqual(full.cuts.map { [$0.start, $0.end, Int($0.field.rawValue)] },
                               cutsOnly.cuts.map { [$0.start, $0.end, Int($0.field.rawValue)] })
                let id = UnsafeBufferPointer(rebasing: b[Int(env.eventID.start)..<Int(env.eventID.end)])
                XCTAssertEqual(k.idHash, EventIdentity.idHash(id))
                return k
            }
            got.append(keys)
        }
        XCTAssertEqual(got.map(\.key), [0, 1, 0, 1, 0])
        XCTAssertEqual(got.map(\.user), [0, 0, 1, 0, 1])
        // Started without a step, viewed with one, and started with its keys in another order.
        XCTAssertEqual(got.map(\.shape), [0, 1, 0, 1, 2])
        XCTAssertEqual(Set(got.map(\.idHash)).count, 5)
    }

    /// Lines whose shape never repeats (a value of their own left in it) are numbered until
    /// the input's shapes reach their bound; past it, a new shape is stored verbatim (-1)
    /// while a shape seen before keeps its number: memory stays bounded.
    func testAnInputsShapesAreBounded() throws {
        var decoder = EventDecoder()
        var keyer = LineKeyer()
        func shape(_ i: Int) throws -> Int32 {
            let line = Array(#"{"event_id":"e\#(i)","event":"onboarding.started","user_id":"u","ts":"2026-10-01T10:00:00Z","flow":"glp1","received":"r\#(i)"}"#.utf8)
            return try line.withUnsafeBufferPointer { b in
                guard case .success(let env) = decoder.envelope(b) else { throw CocoaError(.coderReadCorrupt) }
                return keyer.keys(env, start: 0, end: b.count, in: b).shape
            }
        }
        for i in 0..<Tuning.inputShapes { XCTAssertEqual(try shape(i), Int32(i)) }
        XCTAssertEqual(try shape(Tuning.inputShapes), -1)
        XCTAssertEqual(try shape(Tuning.inputShapes + 1), -1)
        XCTAssertEqual(try shape(7), 7)
    }
}
