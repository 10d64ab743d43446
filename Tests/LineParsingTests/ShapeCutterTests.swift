import XCTest
import FunnelModel
import LogFiles
@testable import LineParsing

/// An input's lines cut for a store that keeps shapes: each shape's first line asks the store
/// for its id, later ones only pick their cuts; every line rebuilds from its skeleton and its
/// values byte for byte (`LineShape.rebuild`).
final class ShapeCutterTests: XCTestCase {
    let lines = [
        #"{"event_id":"a1","event":"onboarding.started","user_id":"u-1","ts":"2026-10-01T10:00:00Z","flow":"glp1","context":{"p":1}}"#,
        #"{"event_id":"a2","event":"onboarding.step_completed","user_id":"u-1","ts":"2026-10-01T10:00:01+02:00","flow":"glp1","step":"goal","properties":{"kg":80.5}}"#,
        #"{"event_id":"b1","event":"onboarding.started","user_id":"u-2","ts":"2026-10-01T10:00:02Z","flow":"glp1","context":{"p":1}}"#,
        #"{"event_id":"b2","user_id":"u-2","event":"onboarding.started","ts":"2026-10-01T10:00:03Z","flow":"glp1","context":{"p":1}}"#,
    ]

    func testEachShapesFirstLineAsksForItsIdAndEveryLineRebuilds() throws {
        var decoder = EventDecoder()
        var keyer = LineKeyer()
        var cutter = ShapeCutter()
        var skeletons: [[UInt8]] = []
        var got: [String] = []
        for (n, text) in lines.enumerated() {
            let bytes = Array(text.utf8)
            try bytes.withUnsafeBufferPointer { b in
                guard case .success(let env) = decoder.envelope(b) else { throw CocoaError(.coderReadCorrupt) }
                var line = ParsedLine(number: n + 1, offset: 0, start: 0, count: b.count, envelope: env)
                line.keys = keyer.keys(env, start: 0, end: b.count, in: b)
                let id: Int64?
                switch cutter.cut(line, env, in: b, vendorCuts: nil) {
                case .new(let skeleton):
                    skeletons.append(skeleton)
                    id = Int64(skeletons.count - 1)
                    cutter.learn(id)
                case .known(let known): id = known
                case .none: id = nil
                }
                let skeleton = try XCTUnwrap(id.map { skeletons[Int($0)] })
                // The cut values, as a store keeps them, fill the skeleton back to the line.
                let values = cutter.cuts.map { Array(b[$0.start..<$0.end]) }
                var next = 0, out: [UInt8] = []
                let whole = skeleton.withUnsafeBufferPointer { sk in
                    LineShape.rebuild(sk, into: &out) { field, out in
                        XCTAssertEqual(field, cutter.cuts[next].field)
                        out.append(contentsOf: values[next])
                        next += 1
                    }
                }
                XCTAssertTrue(whole)
                XCTAssertEqual(next, values.count)
                got.append(String(decoding: out, as: UTF8.self))
            }
        }
        XCTAssertEqual(got, lines)
        // Lines 1 and 3 share a shape; the fourth's keys come in another order, its own.
        XCTAssertEqual(skeletons.count, 3)
        XCTAssertEqual(String(decoding: skeletons[0], as: UTF8.self),
                       "{\"event_id\":\"\0\u{1}\",\"event\":\"\0\u{2}\",\"user_id\":\"\0\u{3}\",\"ts\":\"\0\u{4}\",\"flow\":\"\0\u{5}\",\"context\":{\"p\":1}}")
    }

    func testANumberTheParserSkippedIsOutOfOrder() throws {
        let bytes = Array(lines[0].utf8)
        try bytes.withUnsafeBufferPointer { b in
            var decoder = EventDecoder()
            guard case .success(let env) = decoder.envelope(b) else { throw CocoaError(.coderReadCorrupt) }
            var cutter = ShapeCutter()
            var line = ParsedLine(number: 1, offset: 0, start: 0, count: b.count, envelope: env)
            line.keys.shape = 1
            guard case .none(outOfOrder: true) = cutter.cut(line, env, in: b, vendorCuts: nil) else { return XCTFail("not out of order") }
            line.keys.shape = -1
            guard case .none(outOfOrder: false) = cutter.cut(line, env, in: b, vendorCuts: nil) else { return XCTFail("not whole") }
        }
    }

    func testASkeletonWithABadCutDoesNotRebuild() {
        var out: [UInt8] = []
        let bad: [UInt8] = Array(#"{"a":"#.utf8) + [0, 99] + Array("}".utf8)
        XCTAssertFalse(bad.withUnsafeBufferPointer { LineShape.rebuild($0, into: &out) { _, _ in } })
        let cutAtEnd: [UInt8] = Array(#"{"a":"#.utf8) + [0]
        XCTAssertFalse(cutAtEnd.withUnsafeBufferPointer { LineShape.rebuild($0, into: &out) { _, _ in } })
    }
}
