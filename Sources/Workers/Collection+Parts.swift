extension Collection where Index == Int {
    /// The index ranges of this collection cut into consecutive parts of `size` items (the
    /// last may hold fewer): the items a `parallelMap` worker takes at a time.
    public func partRanges(size: Int) -> [Range<Int>] {
        stride(from: startIndex, to: endIndex, by: Swift.max(1, size)).map { $0..<Swift.min($0 + size, endIndex) }
    }
}
