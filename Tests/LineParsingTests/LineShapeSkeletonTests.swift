import XCTest
@testable import LineParsing

/// `LineShape`'s skeleton (made its length at once and written in place) against one built
/// a piece at a time: random lines and cuts (empty ones, at the line's ends, side by side),
/// one after another in one shape, so that a skeleton is written over a longer or a shorter
/// one before it.
final class LineShapeSkeletonTests: XCTestCase {
    /// The skeleton as the bytes before each cut, 0x00 and the cut's code, and the rest.
    static func reference(_ line: [UInt8], start: Int, end: Int, cuts: [LineShape.Cut]) -> [UInt8] {
        var out: [UInt8] = []
        var pos = start
        for c in cuts {
            out += line[pos..<c.start]
            out += [0, c.field.rawValue]
            pos = c.end
        }
        out += line[pos..<end]
        return out
    }

    func testTheSkeletonIsTheLineLessItsCuts() {
        var state: UInt64 = 0x5EED
        func below(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let fields: [LineShape.Field] = [.eventID, .name, .user, .ts, .flow, .step, .properties]
        var shape = LineShape()
        var lengths = Set<Int>()
        for _ in 0..<5_000 {
            let count = below(4) == 0 ? below(8) : below(400)
            let line = (0..<count).map { _ in UInt8(0x20 + below(0x5F)) }
            let start = count == 0 ? 0 : below(count + 1) / 4
            let end = start + (count - start == 0 ? 0 : (count - start) - below(count - start + 1) / 4)
            // Cut points in order within the line: pairs of sorted offsets, some the same.
            var points = (0..<(2 * below(8))).map { _ in start + below(end - start + 1) }.sorted()
            if points.count % 2 == 1 { points.removeLast() }
            var cuts: [LineShape.Cut] = []
            for k in stride(from: 0, to: points.count, by: 2) {
                cuts.append(LineShape.Cut(start: points[k], end: points[k + 1], field: fields[below(fields.count)]))
            }
            line.withUnsafeBufferPointer { b in
                shape.shape(cuts: cuts, lineStart: start, lineEnd: end, in: b)
            }
            let expected = Self.reference(line, start: start, end: end, cuts: cuts)
            XCTAssertEqual(shape.skeleton, expected, "line \(count) bytes, \(start)..<\(end), cuts \(points)")
            lengths.insert(expected.count)
        }
        XCTAssertGreaterThan(lengths.count, 300)
        XCTAssertTrue(lengths.contains(0))
    }
}
