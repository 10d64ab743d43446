import XCTest
import FunnelModel
import LogFiles
@testable import Journeys

/// A held event's context number: by its bytes, whether or not its shape's last line had the
/// same context.
final class EventPartsTests: XCTestCase {
    /// Lines with their contexts, the context number each is held with given `shape` numbers.
    func contextNumbers(_ contexts: [String], shapes: [Int32]) throws -> (numbers: [Int32], parts: EventParts) {
        var parts = EventParts()
        var numbers: [Int32] = []
        for (i, context) in contexts.enumerated() {
            let line = Array(#"{"event_id":"e\#(i)","event":"onboarding.step_viewed","user_id":"u-1","ts":"2026-10-01T10:00:0\#(i % 10)Z","flow":"glp1","step":"welcome","context":\#(context)}"#.utf8)
            try line.withUnsafeBufferPointer { b in
                var decoder = EventDecoder()
                guard case .success(let env) = decoder.envelope(b) else { throw CocoaError(.coderReadCorrupt) }
                numbers.append(parts.hold(seq: Int64(i), names: parts.names(ofKey: 0, env, in: b), shape: shapes[i], env, in: b).context)
            }
        }
        return (numbers, parts)
    }

    func testAShapesLastContextIsTakenOnlyWhenTheBytesAreTheSame() throws {
        let ios = #"{"platform":"ios","app_version":"5.1.0"}"#
        let android = #"{"platform":"android","app_version":"5.1.0"}"#
        let iosFlagged = #"{"platform":"ios","app_version":"5.1.0","flags":{"newPaywall":true}}"#
        // Shape 3 meets two contexts (a shape never does in an input, but the number must not
        // decide it), shape 5 one, and a line without a shape (-1) the first context again.
        let contexts = [ios, ios, android, iosFlagged, ios, android, ios]
        let shapes: [Int32] = [3, 3, 3, 5, 3, 5, -1]
        let (numbers, parts) = try contextNumbers(contexts, shapes: shapes)
        let byBytes = try contextNumbers(contexts, shapes: Array(repeating: -1, count: contexts.count))
        XCTAssertEqual(numbers, [1, 1, 2, 3, 1, 2, 1])
        XCTAssertEqual(numbers, byBytes.numbers)
        let table = parts.table
        XCTAssertEqual(table.contexts.count, 4, "no context, then the three met")
        XCTAssertEqual(table.contexts[1].platform, "ios")
        XCTAssertEqual(table.contexts[2].platform, "android")
        XCTAssertEqual(table.contexts[3].flags["newPaywall"], .bool(true))
    }
}
