/// Bytes written through a pointer into room made beforehand (the native line a cutter
/// writes): no uniqueness check or reference count per piece, as appending to an array has.
/// Writing past the room stops the process, as an array's subscript does.
struct ByteWriter {
    private let base: UnsafeMutablePointer<UInt8>
    private let room: Int
    /// The bytes written so far.
    private(set) var count = 0

    /// Writes into `buffer` from its start; nil when it has no room at all.
    init?(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress else { return nil }
        self.base = base
        room = buffer.count
    }

    @inline(__always)
    mutating func byte(_ c: UInt8) {
        precondition(count < room, "ByteWriter: past its room")
        base[count] = c
        count += 1
    }

    /// The bytes at `r` of `b` (never bytes of the room itself).
    @inline(__always)
    mutating func copy(_ r: Range<Int>, of b: UnsafeBufferPointer<UInt8>) {
        precondition(r.lowerBound >= 0 && r.upperBound <= b.count && count + r.count <= room, "ByteWriter: past its room")
        guard let from = b.baseAddress, !r.isEmpty else { return }
        Self.move(r.count, from: UnsafeRawPointer(from + r.lowerBound), to: UnsafeMutableRawPointer(base + count))
        count += r.count
    }

    /// `n` bytes from `src` to `dst` (apart): up to sixteen as two words that overlap,
    /// without a call, as most pieces of a native line are short keys and values.
    @inline(__always)
    private static func move(_ n: Int, from src: UnsafeRawPointer, to dst: UnsafeMutableRawPointer) {
        switch n {
        case 8...16:
            let head = src.loadUnaligned(as: UInt64.self), tail = src.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            dst.storeBytes(of: head, as: UInt64.self)
            dst.storeBytes(of: tail, toByteOffset: n - 8, as: UInt64.self)
        case 4..<8:
            let head = src.loadUnaligned(as: UInt32.self), tail = src.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            dst.storeBytes(of: head, as: UInt32.self)
            dst.storeBytes(of: tail, toByteOffset: n - 4, as: UInt32.self)
        case 0..<4:
            for k in 0..<n { dst.storeBytes(of: src.load(fromByteOffset: k, as: UInt8.self), toByteOffset: k, as: UInt8.self) }
        default:
            dst.copyMemory(from: src, byteCount: n)
        }
    }

    /// All of `b`.
    @inline(__always)
    mutating func copy(_ b: UnsafeBufferPointer<UInt8>) {
        copy(0..<b.count, of: b)
    }

    /// All of `a`.
    @inline(__always)
    mutating func copy(_ a: [UInt8]) {
        a.withUnsafeBufferPointer { copy($0) }
    }

    /// The bytes of `text` (ASCII keys and punctuation of the native line).
    @inline(__always)
    mutating func literal(_ text: StaticString) {
        copy(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Drops what was written from `end` on.
    @inline(__always)
    mutating func truncate(to end: Int) {
        precondition(end >= 0 && end <= count, "ByteWriter: truncated past its end")
        count = end
    }
}
