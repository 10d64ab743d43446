import XCTest
import Simulator
@testable import LogSources

/// `ByteWriter` against appending to an array: runs of every length up to 40 at every start
/// of a random line, after pieces of every length, written as the same bytes; a short run
/// at the line's very end read within the line.
final class ByteWriterTests: XCTestCase {
    func testPiecesAreWrittenAsAnArrayAppendsThem() {
        var r = SplitMix64(seed: 0xB17E)
        let line = (0..<64).map { _ in UInt8(truncatingIfNeeded: r.next()) }
        var room = [UInt8](repeating: 0, count: 4096)
        line.withUnsafeBufferPointer { b in
            for lead in 0..<20 {
                for start in 0...line.count {
                    var expected: [UInt8] = []
                    let written = room.withUnsafeMutableBufferPointer { p -> Int in
                        guard var w = ByteWriter(p) else { return -1 }
                        w.copy(0..<lead, of: b)
                        expected += line[0..<lead]
                        for length in 0...min(40, line.count - start) {
                            w.copy(start..<(start + length), of: b)
                            expected += line[start..<(start + length)]
                        }
                        w.literal("\"k\":")
                        expected += Array("\"k\":".utf8)
                        return w.count
                    }
                    XCTAssertEqual(Array(room[..<max(written, 0)]), expected, "lead \(lead), start \(start)")
                }
            }
        }
    }
}
