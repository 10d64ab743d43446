#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LineShape {
    /// Appends to `out` the line of `skeleton`: its bytes, and in each cut the value `value`
    /// appends for that cut's field (cuts in line order). False when the skeleton is not one
    /// (a 0x00 byte without a field code after it). Cuts are found with `memchr`: a skeleton is
    /// mostly bytes to copy.
    package static func rebuild(_ skeleton: UnsafeBufferPointer<UInt8>, into out: inout [UInt8],
                                value: (Field, inout [UInt8]) throws -> Void) rethrows -> Bool {
        guard let base = skeleton.baseAddress.map(UnsafeRawPointer.init) else { return true }
        var k = 0
        while k < skeleton.count {
            var next = skeleton.count
            if let hit = memchr(base + k, 0, skeleton.count - k) { next = UnsafeRawPointer(hit) - base }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: skeleton[k..<next]))
            guard next < skeleton.count else { break }
            guard next + 1 < skeleton.count, let field = Field(rawValue: skeleton[next + 1]) else { return false }
            try value(field, &out)
            k = next + 2
        }
        return true
    }
}
