/// Results written by concurrent workers at disjoint indices, read after they finished.
package final class DisjointResults<T: Sendable>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<T?>
    private let count: Int

    package init(count: Int) {
        self.count = count
        base = UnsafeMutablePointer<T?>.allocate(capacity: max(count, 1))
        base.initialize(repeating: nil, count: count)
    }

    package func set(_ i: Int, _ value: T) { base[i] = value }

    /// The value at `i`, leaving nil there.
    package func take(_ i: Int) -> T? {
        let v = base[i]
        base[i] = nil
        return v
    }

    package func release() {
        base.deinitialize(count: count)
        base.deallocate()
    }
}
