extension Array {
    /// The same elements in storage sized to them, when the array has room for more.
    mutating func shrinkToFit() {
        guard capacity > count else { return }
        var fitted: [Element] = []
        fitted.reserveCapacity(count)
        fitted.append(contentsOf: self)
        self = fitted
    }
}
