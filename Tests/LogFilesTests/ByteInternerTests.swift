import XCTest
@testable import LogFiles

/// The interner's ids and lookups, and its table hash's spread over keys that differ in one
/// byte anywhere (as the templates' tails do) and over keys of every length.
final class ByteInternerTests: XCTestCase {
    /// Keys of every length to 200 and, at lengths around each step of the hash, keys equal
    /// but for one byte at each place.
    private func keys() -> [[UInt8]] {
        var out: [[UInt8]] = []
        for n in 0...200 { out.append((0..<n).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 0x41) }) }
        for n in [3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 150] {
            let base = [UInt8](repeating: 0x61, count: n)
            for at in 0..<n {
                for c: UInt8 in [0x62, 0x22, 0x00, 0xFF] {
                    var k = base
                    k[at] = c
                    out.append(k)
                }
            }
        }
        return out
    }

    func testEachKeyKeepsItsIdAndAnAbsentKeyHasNone() {
        let all = keys()
        var interner = ByteInterner()
        var ids: [Int] = []
        for k in all {
            let (id, isNew) = k.withUnsafeBufferPointer { interner.intern($0) }
            ids.append(id)
            XCTAssertEqual(isNew, id == interner.count - 1)
        }
        // Keys repeat (the one-byte variants meet the runs of 0x61 and the first keys): each
        // key's id is the first of its equals.
        var first: [[UInt8]: Int] = [:]
        for (k, id) in zip(all, ids) {
            if let f = first[k] { XCTAssertEqual(id, f) } else { first[k] = id }
        }
        XCTAssertEqual(Set(ids).count, first.count)
        XCTAssertEqual(interner.count, first.count)
        for (k, id) in first {
            XCTAssertEqual(k.withUnsafeBufferPointer { interner.lookup($0) }, id)
            XCTAssertTrue(k.withUnsafeBufferPointer { interner.holds(id, $0) })
            var absent = k
            absent.append(0x7A)
            if first[absent] == nil { XCTAssertNil(absent.withUnsafeBufferPointer { interner.lookup($0) }) }
        }
    }

    func testTheHashSpreadsKeysThatDifferInOneByte() {
        let all = Array(Set(keys()))
        let hashes = all.map { k in k.withUnsafeBufferPointer { ByteInterner.tableHash($0) } }
        XCTAssertEqual(Set(hashes).count, all.count)
        // The table's slot is the hash's low bits: 1,024 buckets, none with many more keys
        // than its share.
        var buckets = [Int](repeating: 0, count: 1_024)
        for h in hashes { buckets[Int(h & 1_023)] += 1 }
        let share = Double(all.count) / 1_024
        XCTAssertLessThan(Double(buckets.max() ?? 0), share * 3 + 8, "\(all.count) keys")
    }
}
