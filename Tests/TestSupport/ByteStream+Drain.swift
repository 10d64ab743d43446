import LogFiles

extension ByteStream {
    /// Every byte left in the stream, read `chunk` bytes at a time, and the fault that ended
    /// it (nil: the end). Throws any other error.
    public func drain(chunk: Int = 1 << 16) throws -> ([UInt8], InputError?) {
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: chunk)
        do {
            while true {
                let n = try buf.withUnsafeMutableBytes { try read(into: $0) }
                if n == 0 { break }
                out.append(contentsOf: buf[0..<n])
            }
        } catch let e as InputError { return (out, e) }
        return (out, nil)
    }
}
