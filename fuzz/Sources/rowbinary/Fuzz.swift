import ClickHouseStore
import Foundation
import FuzzSupport

/// The ClickHouse RowBinary reader on arbitrary answers, read by an arbitrary sequence of its
/// typed reads. The input's first byte is the sequence's length n (mod 32), the next n bytes
/// the reads (mod 7: uint8, uint32, uint64, int64, bytesOfString, string, nullableString),
/// repeated until the answer ends or a read throws; the rest is the answer. Properties:
/// nothing but a `ClickHouseError` is thrown, every read that returns moves on, and a read
/// at the end throws.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRowBinary(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    guard let first = input.first else { return 0 }
    let n = min(Int(first % 32), input.count - 1)
    let reads = n == 0 ? [UInt8(6)] : Array(input[1...n])
    let answer = Data(input[(1 + n)...])
    var reader = RowBinaryReader(answer, doing: "fuzzing")
    var done = 0
    do {
        while true {
            let atEnd = reader.isAtEnd
            switch reads[done % reads.count] % 7 {
            case 0: _ = try reader.uint8()
            case 1: _ = try reader.uint32()
            case 2: _ = try reader.uint64()
            case 3: _ = try reader.int64()
            case 4: _ = try reader.bytesOfString()
            case 5: _ = try reader.string()
            default: _ = try reader.nullableString()
            }
            fuzzCheck(!atEnd, "a read at the end of the answer returned")
            done += 1
            fuzzCheck(done <= answer.count, "\(done) reads returned from \(answer.count) bytes")
        }
    } catch is ClickHouseError {
    } catch {
        fuzzFailure("RowBinaryReader threw \(type(of: error)), not ClickHouseError: \(error)")
    }
    return 0
}

@main
enum RowBinaryFuzzer {
    static func main() { runFuzzer(fuzzRowBinary) }
}
