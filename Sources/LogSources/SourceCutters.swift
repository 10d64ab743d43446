/// The cutters of the inputs read through a source, by input id, for a reader that maps their
/// stored lines again: each cutter is kept in an array and mapped in place (a dictionary's
/// value would be copied whole, buffers and all, on every line).
public struct SourceCutters {
    private var cutters: [SourceCutter] = []
    private var index: [Int64: Int] = [:]

    public init() {}

    /// Whether `input` has a cutter here.
    public func has(input: Int64) -> Bool { index[input] != nil }

    /// Keeps `cutter` for the lines of `input`.
    public mutating func add(_ cutter: SourceCutter, input: Int64) {
        index[input] = cutters.count
        cutters.append(cutter)
    }

    /// The native line of `input`'s vendor line `b`, or why it no longer maps; nil when
    /// `input` has no cutter (its lines are native).
    public mutating func nativeLine(input: Int64, _ b: UnsafeBufferPointer<UInt8>) -> Result<[UInt8], SourceRejection>? {
        guard let c = index[input] else { return nil }
        return cutters[c].nativeLine(b)
    }
}
