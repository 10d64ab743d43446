extension LineShape {
    /// Appends to `out` the line of `skeleton`: its bytes, and in each cut the value `value`
    /// appends for that cut's field (cuts in line order). False when the skeleton is not one
    /// (a 0x00 byte without a field code after it).
    package static func rebuild(_ skeleton: UnsafeBufferPointer<UInt8>, into out: inout [UInt8],
                                value: (Field, inout [UInt8]) throws -> Void) rethrows -> Bool {
        var k = 0
        while k < skeleton.count {
            var next = k
            while next < skeleton.count && skeleton[next] != 0 { next += 1 }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: skeleton[k..<next]))
            guard next < skeleton.count else { break }
            guard next + 1 < skeleton.count, let field = Field(rawValue: skeleton[next + 1]) else { return false }
            try value(field, &out)
            k = next + 2
        }
        return true
    }
}
