import Journeys

/// What a journeys source read, one list per share in share order: a share adds to its own
/// list (a copy of the blank's one), and merging appends a later share's lists.
public struct CollectedShares<Element: Sendable>: JourneyAccumulator {
    public var shares: [[Element]] = [[]]

    public init() {}

    public mutating func add(_ element: Element) {
        shares[shares.count - 1].append(element)
    }

    public mutating func merge(_ later: CollectedShares) {
        shares += later.shares
    }

    /// Everything read, in share order.
    public var all: [Element] { shares.flatMap { $0 } }
}
